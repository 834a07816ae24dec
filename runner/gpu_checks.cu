// gpu_checks.cu: the verifier's kernels (gpu_checks.h). Every kernel walks its buffer with
// a grid-stride loop in 64-bit indices; a reduction keeps one accumulator per thread (its
// elements in increasing order, as elemcore.h's accumulators expect), merges them per block
// in shared memory, and leaves one result per block, which the host merges in block order.
#include "gpu_checks.h"

#include <cuda_runtime.h>

namespace {

constexpr int THREADS = 256;
constexpr int MAX_BLOCKS = 1024;

int blocks_for(int64_t n) {
  int64_t b = (n + THREADS - 1) / THREADS;
  return b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : (int)b;
}

// Per-block results, on the device and in pinned host memory; sized for the largest
// accumulator and kept for the worker's life (a worker runs one job at a time).
constexpr size_t SCRATCH = MAX_BLOCKS * 128;
void *dev_scratch, *host_scratch;

cudaError_t scratch() {
  cudaError_t r = cudaSuccess;
  if (!dev_scratch && (r = cudaMalloc(&dev_scratch, SCRATCH)) != cudaSuccess)
    return r;
  if (!host_scratch && (r = cudaMallocHost(&host_scratch, SCRATCH)) != cudaSuccess)
    return r;
  return r;
}

template <class Op>
__global__ void reduce_kernel(Op op, int64_t n, typename Op::acc *partial) {
  static_assert(sizeof(typename Op::acc) * MAX_BLOCKS <= SCRATCH, "scratch too small");
  __shared__ typename Op::acc part[THREADS];
  typename Op::acc a;
  op.init(a);
  for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * THREADS)
    op.add(a, i);
  part[threadIdx.x] = a;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      op.merge(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = part[0];
}

// Run op over n elements and merge the blocks' results in order into *out.
template <class Op>
int reduce(const Op &op, int64_t n, cudaStream_t stream, typename Op::acc *out) {
  using acc = typename Op::acc;
  cudaError_t r = scratch();
  if (r != cudaSuccess)
    return r;
  int blocks = blocks_for(n);
  reduce_kernel<Op><<<blocks, THREADS, 0, stream>>>(op, n, (acc *)dev_scratch);
  if ((r = cudaGetLastError()) != cudaSuccess ||
      (r = cudaMemcpyAsync(host_scratch, dev_scratch, sizeof(acc) * blocks,
                           cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
      (r = cudaStreamSynchronize(stream)) != cudaSuccess)
    return r;
  const acc *parts = (const acc *)host_scratch;
  op.init(*out);
  for (int b = 0; b < blocks; b++)
    op.merge(*out, parts[b]);
  return cudaSuccess;
}

// The first element where a predicate holds (min over elements, n when none).
struct first_acc {
  int64_t at;
};

struct first_base {
  typedef first_acc acc;
  int64_t n;
  __host__ __device__ void init(acc &a) const { a.at = n; }
  __host__ __device__ void merge(acc &a, const acc &b) const {
    if (b.at < a.at)
      a.at = b.at;
  }
};

struct fill_check_op : first_base {
  const void *p;
  ec_draw d;
  __device__ void add(acc &a, int64_t i) const {
    unsigned char want[8];
    ec_set(d.type, want, 0, ec_draw_value(&d, i));
    if (a.at == n && ec_word(d.type, p, i) != ec_word(d.type, want, 0))
      a.at = i;
  }
};

struct unwritten_both_op : first_base {
  const unsigned char *a, *b;
  int pa, pb, type;
  __device__ void add(acc &x, int64_t i) const {
    size_t k = ec_size(type);
    if (x.at == n && ec_all_bytes(a + (size_t)i * k, k, (unsigned char)pa) &&
        ec_all_bytes(b + (size_t)i * k, k, (unsigned char)pb))
      x.at = i;
  }
};

struct unwritten_op : first_base {
  const unsigned char *out, *ref;
  int poison, type;
  __device__ void add(acc &x, int64_t i) const {
    size_t k = ec_size(type);
    if (x.at == n && ec_all_bytes(out + (size_t)i * k, k, (unsigned char)poison) &&
        !ec_all_bytes(ref + (size_t)i * k, k, (unsigned char)poison))
      x.at = i;
  }
};

struct compare_op {
  typedef ec_cmp acc;
  const void *out, *ref;
  int type, exact, finite_only;
  __host__ __device__ void init(acc &a) const { ec_cmp_init(&a); }
  __host__ __device__ void merge(acc &a, const acc &b) const { ec_cmp_merge(&a, &b); }
  __device__ void add(acc &a, int64_t i) const {
    ec_cmp_add(&a, type, out, ref, i, exact, finite_only);
  }
};

struct spread_op {
  typedef ec_spread acc;
  const void *a, *b;
  int type;
  __host__ __device__ void init(acc &x) const { ec_spread_init(&x); }
  __host__ __device__ void merge(acc &x, const acc &y) const { ec_spread_merge(&x, &y); }
  __device__ void add(acc &x, int64_t i) const { ec_spread_add(&x, type, a, b, i); }
};

struct hash_acc {
  uint64_t h;
};

struct hash_op {
  typedef hash_acc acc;
  const void *p;
  int type;
  __host__ __device__ void init(acc &a) const { a.h = 0; }
  __host__ __device__ void merge(acc &a, const acc &b) const { a.h += b.h; }
  __device__ void add(acc &a, int64_t i) const { a.h += ec_hash_term(type, p, i); }
};

__global__ void fill_kernel(void *p, int64_t n, ec_draw d) {
  for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * THREADS)
    ec_set(d.type, p, i, ec_draw_value(&d, i));
}

int first_result(int r, int64_t at, int64_t n, int64_t *first) {
  *first = r == cudaSuccess && at < n ? at : -1;
  return r;
}

} // namespace

extern "C" int gc_fill(void *dev, int64_t n, const ec_draw *d, cudaStream_t stream) {
  // more blocks than a reduction: the generator's arithmetic wants the whole chip
  int64_t b = (n + THREADS - 1) / THREADS;
  fill_kernel<<<b < 1 ? 1 : b > 8 * MAX_BLOCKS ? 8 * MAX_BLOCKS : (int)b, THREADS, 0, stream>>>(
      dev, n, *d);
  return cudaGetLastError();
}

extern "C" int gc_fill_check(const void *dev, int64_t n, const ec_draw *d,
                             cudaStream_t stream, int64_t *first) {
  fill_check_op op;
  op.n = n;
  op.p = dev;
  op.d = *d;
  first_acc a;
  int r = reduce(op, n, stream, &a);
  return first_result(r, a.at, n, first);
}

extern "C" int gc_compare(const void *out, const void *ref, int64_t n, int type, int exact,
                          int finite_only, cudaStream_t stream, ec_cmp *res) {
  compare_op op = {out, ref, type, exact, finite_only};
  return reduce(op, n, stream, res);
}

extern "C" int gc_spread(const void *a, const void *b, int64_t n, int type,
                         cudaStream_t stream, ec_spread *res) {
  spread_op op = {a, b, type};
  return reduce(op, n, stream, res);
}

extern "C" int gc_unwritten_both(const void *a, int pa, const void *b, int pb, int64_t n,
                                 int type, cudaStream_t stream, int64_t *first) {
  unwritten_both_op op;
  op.n = n;
  op.a = (const unsigned char *)a;
  op.b = (const unsigned char *)b;
  op.pa = pa;
  op.pb = pb;
  op.type = type;
  first_acc x;
  int r = reduce(op, n, stream, &x);
  return first_result(r, x.at, n, first);
}

extern "C" int gc_unwritten(const void *out, int poison, const void *ref, int64_t n, int type,
                            cudaStream_t stream, int64_t *first) {
  unwritten_op op;
  op.n = n;
  op.out = (const unsigned char *)out;
  op.ref = (const unsigned char *)ref;
  op.poison = poison;
  op.type = type;
  first_acc x;
  int r = reduce(op, n, stream, &x);
  return first_result(r, x.at, n, first);
}

extern "C" int gc_hash(const void *dev, int64_t n, int type, cudaStream_t stream,
                       uint64_t *hash) {
  hash_op op = {dev, type};
  hash_acc a;
  int r = reduce(op, n, stream, &a);
  *hash = a.h;
  return r;
}
