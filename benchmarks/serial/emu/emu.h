// CPU emulation of the subset of CUDA used by the kfuse serial corpus and the
// parallelize pass's outputs.  Force-included (g++ -include emu.h) into a source
// that emu.py has preprocessed (launches -> kf_launch, __shared__ -> kf_shared).
//
// Execution model:
//  * every launch runs synchronously; blocks one after another (order chosen by
//    KF_ORDER = fwd | rev | shuf), threads of a block one after another too;
//  * a kernel that calls __syncthreads (known statically by emu.py) runs each
//    thread of a block as a ucontext fiber; a barrier switches to the next fiber,
//    so all threads of the block reach the barrier before any continues;
//  * built with -DKF_TSAN -fsanitize=thread, every thread of every kernel is a
//    fiber and a ThreadSanitizer fiber, with the happens-before edges CUDA gives
//    (launch -> its threads, barrier -> the block's threads, threads -> launch end)
//    and none between the blocks of a launch: TSan reports conflicting accesses of
//    one launch that nothing orders, even where the sequential run hides them;
//  * __shared__ arrays live in a per-block arena poisoned with 0xFF bytes
//    (NaN for float, -1 for int) at the start of each block;
//  * device allocations (cudaMalloc*) and the driver's buffers are mmap'ed with
//    guard pages: KF_GUARD=back puts the buffer's end at a PROT_NONE page
//    (overruns fault), KF_GUARD=front its start right after one (underruns fault);
//    scratch memory is poisoned with 0xFF.
#pragma once
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __shared__ static /* fallback only: emu.py rewrites __shared__ declarations */

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};

#ifdef KF_TSAN
// ThreadSanitizer build: every CUDA thread is a TSan fiber on one OS thread, so the index
// variables are shared by fibers that TSan must not see as ordered: relaxed atomics
extern "C" {
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
}
struct KfRelaxedU {
  unsigned v;
  operator unsigned() const { return __atomic_load_n(&v, __ATOMIC_RELAXED); }
  void set(unsigned x) { __atomic_store_n(&v, x, __ATOMIC_RELAXED); }
};
struct KfIdx3 {
  KfRelaxedU x, y, z;
};
inline KfIdx3 threadIdx = {{0}, {0}, {0}};
inline KfIdx3 blockIdx = {{0}, {0}, {0}};
inline void kf_set_idx(KfIdx3 &d, uint3 s) { d.x.set(s.x); d.y.set(s.y); d.z.set(s.z); }
#define KF_LD(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#define KF_ST(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#else
inline uint3 threadIdx = {0, 0, 0};
inline uint3 blockIdx = {0, 0, 0};
inline void kf_set_idx(uint3 &d, uint3 s) { d = s; }
#define KF_LD(p) (p)
#define KF_ST(p, v) ((p) = (v))
#endif
inline dim3 blockDim = dim3(1, 1, 1);
inline dim3 gridDim = dim3(1, 1, 1);
constexpr int warpSize = 32;

struct CUstream_st;
typedef CUstream_st *cudaStream_t;
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                   cudaErrorInvalidConfiguration = 9 };
typedef cudaError_t cudaError;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };

// ---------------------------------------------------------------- diagnostics
inline const char *kf_cur_kernel = "<host>";
inline cudaError_t kf_last_error = cudaSuccess;

inline void kf_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "EMU-NOTE: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

inline void kf_segv(int sig, siginfo_t *si, void *) {
  char buf[512];
  int n = snprintf(buf, sizeof buf,
                   "EMU-FAULT: signal %d at address %p in kernel %s block (%u,%u,%u) thread (%u,%u,%u)\n", sig,
                   si->si_addr, kf_cur_kernel, (unsigned)blockIdx.x, (unsigned)blockIdx.y, (unsigned)blockIdx.z,
                   (unsigned)threadIdx.x, (unsigned)threadIdx.y, (unsigned)threadIdx.z);
  if (n > 0) (void)!write(2, buf, (size_t)n);
  _exit(128 + sig);
}

inline void kf_install_handlers() {
  static char altstack[1 << 16];
  stack_t ss;
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = kf_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  sigaction(SIGFPE, &sa, nullptr);
}

// ---------------------------------------------------------------- memory
inline bool kf_guard_front() {
  static int v = -1;
  if (v < 0) {
    const char *g = getenv("KF_GUARD");
    v = (g && !strcmp(g, "front")) ? 1 : 0;
  }
  return v == 1;
}

struct KfAlloc {
  char *base;
  size_t len;
  size_t n;
};
inline std::map<void *, KfAlloc> &kf_allocs() {
  static std::map<void *, KfAlloc> m;
  return m;
}

inline void *kf_alloc_guarded(size_t n, int poison) {
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t body = (n + pg - 1) / pg * pg;
  if (body == 0) body = pg;
  size_t len = body + 2 * pg;
  char *base = (char *)mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    fprintf(stderr, "EMU-ERROR: mmap of %zu bytes failed\n", len);
    exit(3);
  }
  mprotect(base, pg, PROT_NONE);
  mprotect(base + pg + body, pg, PROT_NONE);
  char *p;
  if (kf_guard_front())
    p = base + pg;
  else
    p = base + pg + body - n;
  if (poison >= 0) memset(p, poison, n);
  kf_allocs()[p] = KfAlloc{base, len, n};
  return p;
}

inline void kf_free_guarded(void *p) {
  if (!p) return;
  auto it = kf_allocs().find(p);
  if (it == kf_allocs().end()) {
    kf_note("free of a pointer that was not allocated: %p", p);
    return;
  }
  munmap(it->second.base, it->second.len);
  kf_allocs().erase(it);
}

template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) {
  *p = (T *)kf_alloc_guarded(n, 0xFF);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t) {
  *p = (T *)kf_alloc_guarded(n, 0xFF);
  return cudaSuccess;
}
inline cudaError_t cudaFree(void *p) {
  kf_free_guarded(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) {
  kf_free_guarded(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
  memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = nullptr) {
  memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t = nullptr) {
  memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
  cudaError_t e = kf_last_error;
  kf_last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return kf_last_error; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated error"; }

// ---------------------------------------------------------------- math
template <class A, class B> inline auto min(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>)
    return (C)std::fmin((C)a, (C)b);
  else
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B> inline auto max(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>)
    return (C)std::fmax((C)a, (C)b);
  else
    return (C)a > (C)b ? (C)a : (C)b;
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
template <class T> inline T __ldg(const T *p) { return *p; }
inline void __threadfence() {}
inline void __threadfence_block() {}

// ---------------------------------------------------------------- atomics
// atomic operations, relaxed as CUDA's are (TSan sees them as atomic, creating no order)
template <class T> inline T kf_atomic_rmw(T *p, T v, int op) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
    case 0: return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    case 1: return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
    case 4: return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
    default: break;
    }
  }
  T o = __atomic_load_n((T *)p, __ATOMIC_RELAXED);
  for (;;) {
    T n = op == 0 ? (T)(o + v) : op == 1 ? (T)(o - v) : op == 2 ? (o > v ? o : v) : op == 3 ? (o < v ? o : v) : v;
    if (__atomic_compare_exchange(p, &o, &n, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return o;
  }
}
template <class T, class U> inline T atomicAdd(T *p, U v) { return kf_atomic_rmw<T>(p, (T)v, 0); }
template <class T, class U> inline T atomicSub(T *p, U v) { return kf_atomic_rmw<T>(p, (T)v, 1); }
template <class T, class U> inline T atomicMax(T *p, U v) { return kf_atomic_rmw<T>(p, (T)v, 2); }
template <class T, class U> inline T atomicMin(T *p, U v) { return kf_atomic_rmw<T>(p, (T)v, 3); }
template <class T, class U> inline T atomicExch(T *p, U v) { return kf_atomic_rmw<T>(p, (T)v, 4); }
template <class T, class U, class V> inline T atomicCAS(T *p, U c, V v) {
  T e = (T)c, n = (T)v;
  __atomic_compare_exchange(p, &e, &n, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return e;
}

// ---------------------------------------------------------------- grid caps
// KF_CAP=c lowers every cap of the generated kfuse_par_blocks below 2^31-1 to c
inline long long kf_cap(long long cap) {
  static long long v = -2;
  if (v == -2) {
    const char *g = getenv("KF_CAP");
    v = g ? atoll(g) : -1;
  }
  return (v > 0 && cap < 2147483647LL && cap > v) ? v : cap;
}

// ---------------------------------------------------------------- launches
enum { KF_FWD = 0, KF_REV = 1, KF_SHUF = 2 };
inline int kf_order() {
  static int v = -1;
  if (v < 0) {
    const char *g = getenv("KF_ORDER");
    v = !g ? KF_FWD : !strcmp(g, "rev") ? KF_REV : !strcmp(g, "shuf") ? KF_SHUF : KF_FWD;
  }
  return v;
}
inline std::mt19937_64 &kf_rng() {
  static std::mt19937_64 r(12345);
  return r;
}
inline void kf_permute(std::vector<unsigned> &v) {
  if (kf_order() == KF_REV)
    std::reverse(v.begin(), v.end());
  else if (kf_order() == KF_SHUF)
    std::shuffle(v.begin(), v.end(), kf_rng());
}

// per-block shared-memory arena
constexpr size_t KF_SHARED_LIMIT = 48 * 1024;  // static shared memory a block may declare
inline int kf_nshared_ids = 0;                  // set by the translated file (the number of __shared__ declarations)
struct KfShared {
  unsigned long gen = 0;
  std::vector<char> mem;
};
inline unsigned long kf_block_gen = 1;
inline unsigned long kf_block_shared_gen = 0;
inline size_t kf_block_shared_bytes = 0;
inline std::map<int, KfShared> &kf_shared_map() {
  static std::map<int, KfShared> m;
  return m;
}

// fibers
struct KfFiber {
  ucontext_t ctx;
  int state;  // 0 runnable, 1 waiting at a barrier, 2 done
  uint3 tid, bid;
  char *stack = nullptr;
#ifdef KF_TSAN
  void *tsan;      // its TSan fiber
  char *arena;     // its block's shared memory
  uint64_t *sync;  // its block's TSan sync objects: [0] start, [1], [2] barriers (by parity), [3] end
  unsigned phase;
#endif
};
inline bool kf_fiber_mode = false;
inline ucontext_t kf_sched_ctx;
inline KfFiber *kf_cur_fiber = nullptr;
inline std::function<void()> *kf_cur_body = nullptr;
inline long kf_barrier_divergence = 0;
#ifdef KF_TSAN
constexpr size_t KF_STACK = 256 * 1024;
inline void *kf_main_tsan = nullptr;
#else
constexpr size_t KF_STACK = 256 * 1024;
#endif

template <class T> inline T &kf_shared(int id) {
  static_assert(sizeof(T) <= KF_SHARED_LIMIT, "a __shared__ array over 48 KiB");
#ifdef KF_TSAN
  KfFiber *f = KF_LD(kf_cur_fiber);
  return *(T *)(void *)(f->arena + (size_t)(id - 1) * KF_SHARED_LIMIT);
#else
  KfShared &s = kf_shared_map()[id];
  if (s.gen != kf_block_gen) {
    s.mem.assign(sizeof(T) + 16, (char)0xFF);
    s.gen = kf_block_gen;
    if (kf_block_shared_gen != kf_block_gen) {
      kf_block_shared_gen = kf_block_gen;
      kf_block_shared_bytes = 0;
    }
    kf_block_shared_bytes += sizeof(T);
    static bool told = false;
    if (kf_block_shared_bytes > KF_SHARED_LIMIT && !told) {
      told = true;
      fprintf(stderr, "EMU-LAUNCH-ERROR: kernel %s declares %zu bytes of shared memory (over 48 KiB)\n",
              kf_cur_kernel, kf_block_shared_bytes);
    }
  }
  return *(T *)(void *)s.mem.data();
#endif
}

inline std::vector<KfFiber> &kf_fibers() {
  static std::vector<KfFiber> *f = new std::vector<KfFiber>();  // never destroyed
  return *f;
}
constexpr size_t KF_MAX_FIBERS = 4096;  // never reallocated (fibers hold pointers into it)
inline void kf_fibers_reserve(size_t n) {
  auto &fib = kf_fibers();
  if (fib.empty()) fib.resize(KF_MAX_FIBERS);
  if (n > KF_MAX_FIBERS) {
    fprintf(stderr, "EMU-ERROR: %zu fibers needed\n", n);
    _exit(7);
  }
  for (size_t i = 0; i < n; ++i)
    if (!fib[i].stack)
      fib[i].stack = (char *)mmap(nullptr, KF_STACK, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

// back to the scheduler (from a fiber)
inline void kf_yield(KfFiber *f) {
#ifdef KF_TSAN
  __tsan_switch_to_fiber(KF_LD(kf_main_tsan), 1);
#endif
  swapcontext(&f->ctx, &kf_sched_ctx);
}
// to a fiber (from the scheduler)
inline void kf_resume(KfFiber *f) {
  KF_ST(f->state, 0);
  KF_ST(kf_cur_fiber, f);
#ifdef KF_TSAN
  __tsan_switch_to_fiber(f->tsan, 1);
#else
  threadIdx = f->tid;
#endif
  swapcontext(&kf_sched_ctx, &f->ctx);
}

inline void kf_fiber_main() {
  KfFiber *f = KF_LD(kf_cur_fiber);
#ifdef KF_TSAN
  __tsan_acquire(&KF_LD(f->sync)[0]);
  kf_set_idx(threadIdx, f->tid);
  kf_set_idx(blockIdx, f->bid);
#endif
  (*kf_cur_body)();
#ifdef KF_TSAN
  __tsan_release(&KF_LD(f->sync)[3]);
#endif
  KF_ST(f->state, 2);
  kf_yield(f);
}

inline void __syncthreads() {
  if (!kf_fiber_mode) {
    if ((unsigned long)blockDim.x * blockDim.y * blockDim.z == 1) return;
    fprintf(stderr, "EMU-ERROR: __syncthreads in kernel %s which emu.py did not mark as using barriers\n",
            kf_cur_kernel);
    _exit(4);
  }
  KfFiber *f = KF_LD(kf_cur_fiber);
#ifdef KF_TSAN
  uint64_t *obj = &KF_LD(f->sync)[1 + (f->phase & 1)];
  __tsan_release(obj);
#endif
  KF_ST(f->state, 1);
  kf_yield(f);
#ifdef KF_TSAN
  kf_set_idx(threadIdx, f->tid);
  kf_set_idx(blockIdx, f->bid);
  __tsan_acquire(obj);
  f->phase++;
#endif
}

inline long kf_launch_count = 0;
inline long kf_chunked_launches = 0;

// runs the fibers [f0, f0 + n) of one block until all are done
inline void kf_run_block_fibers(KfFiber *f0, unsigned long n, const std::vector<unsigned> &torder, const char *name) {
  for (;;) {
    unsigned long waiting = 0, done_now = 0;
    for (unsigned long ti = 0; ti < n; ++ti) {
      KfFiber &f = f0[torder[ti]];
      if (KF_LD(f.state) == 2) continue;
      kf_resume(&f);
      if (KF_LD(f.state) == 1)
        ++waiting;
      else
        ++done_now;
    }
    if (waiting == 0) break;
    if (done_now > 0 && kf_barrier_divergence++ < 5)
      fprintf(stderr, "EMU-WARN: kernel %s block (%u,%u,%u): %lu threads exited while %lu wait at a barrier\n", name,
              f0->bid.x, f0->bid.y, f0->bid.z, done_now, waiting);
  }
}

inline void kf_init_fiber(KfFiber &f, unsigned long t, dim3 block, uint3 bid) {
  KF_ST(f.state, 0);
  f.tid.x = (unsigned)(t % block.x);
  f.tid.y = (unsigned)((t / block.x) % block.y);
  f.tid.z = (unsigned)(t / (block.x * block.y));
  f.bid = bid;
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.stack;
  f.ctx.uc_stack.ss_size = KF_STACK;
  f.ctx.uc_link = nullptr;
  makecontext(&f.ctx, (void (*)())kf_fiber_main, 0);
}

inline uint3 kf_block_index(unsigned long b, dim3 grid) {
  return uint3{(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y),
               (unsigned)(b / ((unsigned long)grid.x * grid.y))};
}

template <class F> inline void kf_launch(dim3 grid, dim3 block, const char *name, bool barrier, F &&body) {
  ++kf_launch_count;
  unsigned long nthreads = (unsigned long)block.x * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u || nthreads > 1024 || block.z > 64) {
    fprintf(stderr, "EMU-LAUNCH-ERROR: kernel %s grid (%u,%u,%u) block (%u,%u,%u) is not a valid launch; not run\n",
            name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    kf_last_error = cudaErrorInvalidConfiguration;
    return;
  }
  const char *saved_name = kf_cur_kernel;
  kf_cur_kernel = name;
  gridDim = grid;
  blockDim = block;
  unsigned long nblocks = (unsigned long)grid.x * grid.y * grid.z;
  std::vector<unsigned> border;
  bool perm_blocks = kf_order() != KF_FWD && nblocks <= (1ul << 26);
  if (perm_blocks) {
    border.resize(nblocks);
    for (unsigned long i = 0; i < nblocks; ++i) border[i] = (unsigned)i;
    kf_permute(border);
  }
  std::vector<unsigned> torder(nthreads);
  for (unsigned long i = 0; i < nthreads; ++i) torder[i] = (unsigned)i;
  std::function<void()> fbody = [&]() { body(); };
  kf_cur_body = &fbody;
#ifdef KF_TSAN
  // every thread a TSan fiber; the blocks of a chunk (up to KF_TSAN_CHUNK threads) are not
  // ordered with each other (TSan reports a race between them); successive chunks are
  static unsigned long chunk_threads = getenv("KF_TSAN_CHUNK") ? atol(getenv("KF_TSAN_CHUNK")) : 4096;
  KF_ST(kf_main_tsan, __tsan_get_current_fiber());
  unsigned long per = std::max(1ul, chunk_threads / nthreads);
  if (nblocks > per) ++kf_chunked_launches;
  size_t slots = (size_t)std::max(kf_nshared_ids, 1);
  kf_fibers_reserve(std::min(per, nblocks) * nthreads);
  kf_fiber_mode = true;
  for (unsigned long c0 = 0; c0 < nblocks; c0 += per) {
    unsigned long nb = std::min(per, nblocks - c0);
    uint64_t *sync = (uint64_t *)calloc(nb * 4, sizeof(uint64_t));
    char *arena = (char *)malloc(nb * slots * KF_SHARED_LIMIT);
    memset(arena, 0xFF, nb * slots * KF_SHARED_LIMIT);
    auto &fib = kf_fibers();
    for (unsigned long i = 0; i < nb; ++i) {
      unsigned long b = perm_blocks ? border[c0 + i] : c0 + i;
      uint3 bid = kf_block_index(b, grid);
      for (unsigned long t = 0; t < nthreads; ++t) {
        KfFiber &f = fib[i * nthreads + t];
        kf_init_fiber(f, t, block, bid);
        f.tsan = __tsan_create_fiber(0);
        f.arena = arena + i * slots * KF_SHARED_LIMIT;
        KF_ST(f.sync, sync + 4 * i);
        f.phase = 0;
      }
      __tsan_release(&sync[4 * i]);
    }
    for (unsigned long i = 0; i < nb; ++i) {
      if (kf_order() != KF_FWD) {
        for (unsigned long k = 0; k < nthreads; ++k) torder[k] = (unsigned)k;
        kf_permute(torder);
      }
      kf_run_block_fibers(&fib[i * nthreads], nthreads, torder, name);
    }
    for (unsigned long i = 0; i < nb; ++i) {
      __tsan_acquire(&sync[4 * i + 3]);
      for (unsigned long t = 0; t < nthreads; ++t) __tsan_destroy_fiber(fib[i * nthreads + t].tsan);
    }
    free(arena);
    free(sync);
  }
  kf_fiber_mode = false;
#else
  if (barrier) kf_fibers_reserve(nthreads);
  for (unsigned long bi = 0; bi < nblocks; ++bi) {
    unsigned long b = perm_blocks ? border[bi] : bi;
    blockIdx = kf_block_index(b, grid);
    ++kf_block_gen;
    if (kf_order() != KF_FWD) {
      for (unsigned long i = 0; i < nthreads; ++i) torder[i] = (unsigned)i;
      kf_permute(torder);
    }
    if (!barrier) {
      for (unsigned long ti = 0; ti < nthreads; ++ti) {
        unsigned t = torder[ti];
        threadIdx.x = t % block.x;
        threadIdx.y = (t / block.x) % block.y;
        threadIdx.z = t / (block.x * block.y);
        body();
      }
    } else {
      auto &fib = kf_fibers();
      for (unsigned long t = 0; t < nthreads; ++t) kf_init_fiber(fib[t], t, block, blockIdx);
      kf_fiber_mode = true;
      kf_run_block_fibers(&fib[0], nthreads, torder, name);
      kf_fiber_mode = false;
    }
  }
  threadIdx = {0, 0, 0};
  blockIdx = {0, 0, 0};
#endif
  kf_cur_kernel = saved_name;
}
