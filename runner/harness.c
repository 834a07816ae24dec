/* harness.c: calling an entry on the GPU (harness.h). */
#include "harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_checks.h"
#include "manifest.h"

enum { GUARD_BYTE = 0xa5, DIRT_BYTE = 0xff };

void harness_error_text(int err, char *buf, size_t size) {
  snprintf(buf, size, "%s (%s)", cudaGetErrorName((cudaError_t)err),
           cudaGetErrorString((cudaError_t)err));
}

/* Format "what: <error>" into why and return `verdict`. */
static int cuda_fail(int verdict, cudaError_t e, const char *what, char *why, size_t size) {
  char text[512];
  harness_error_text(e, text, sizeof text);
  snprintf(why, size, "%s: %s", what, text);
  return verdict;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the gate that holds the other streams ---- */

/* A host function on a held stream: wait until the gate opens or its deadline passes. It
 * makes no CUDA call, as host functions must not. */
static void CUDART_CB hold_stream(void *arg) {
  hn_gate *g = arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  double end = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + g->seconds;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  pthread_mutex_lock(&g->lock);
  int r = 0;
  while (!g->open && r != ETIMEDOUT)
    r = pthread_cond_timedwait(&g->cond, &g->lock, &until);
  if (!g->open)
    g->waited_out = 1;
  pthread_mutex_unlock(&g->lock);
}

static void gate_close(hn_gate *g) {
  pthread_mutex_lock(&g->lock);
  g->open = 0;
  g->waited_out = 0;
  pthread_mutex_unlock(&g->lock);
}

static void gate_open(hn_gate *g) {
  pthread_mutex_lock(&g->lock);
  g->open = 1;
  pthread_cond_broadcast(&g->cond);
  pthread_mutex_unlock(&g->lock);
}

/* Queue holders on every stream but the call's: the other streams of the harness and the
 * legacy default stream. */
static int hold_others(harness *h, char *why, size_t size) {
  cudaError_t r;
  gate_close(&h->gate);
  for (int i = 0; i < h->nstreams; i++)
    if (i != h->current &&
        (r = cudaLaunchHostFunc(h->streams[i], hold_stream, &h->gate)) != cudaSuccess)
      return cuda_fail(HN_BROKEN, r, "runner: cannot hold a stream", why, size);
  if ((r = cudaLaunchHostFunc(0, hold_stream, &h->gate)) != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: cannot hold the legacy default stream", why, size);
  return HN_OK;
}

/* ---- set-up ---- */

int harness_init(harness *h, const kb_entry *e, char *err, size_t size) {
  cudaError_t r;
  int dev = 0, l2 = 0;
  memset(h, 0, sizeof *h);
  h->e = e;
  pthread_mutex_init(&h->gate.lock, NULL);
  pthread_cond_init(&h->gate.cond, NULL);
  h->gate.seconds = 0.05;
  if ((r = cudaGetDevice(&dev)) != cudaSuccess ||
      (r = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)) != cudaSuccess)
    return cuda_fail(-1, r, "cannot use the CUDA device", err, size);
  if (e->has_stream) {
    for (int i = 0; i < HN_STREAMS; i++)
      if ((r = cudaStreamCreateWithFlags(&h->streams[i], cudaStreamNonBlocking)) != cudaSuccess)
        return cuda_fail(-1, r, "cannot create a stream", err, size);
    h->nstreams = HN_STREAMS;
    h->stream = h->streams[0];
  }
  if ((r = cudaStreamCreateWithFlags(&h->work, cudaStreamNonBlocking)) != cudaSuccess)
    return cuda_fail(-1, r, "cannot create a stream", err, size);
  if ((r = cudaEventCreate(&h->start)) != cudaSuccess ||
      (r = cudaEventCreate(&h->stop)) != cudaSuccess)
    return cuda_fail(-1, r, "cannot create events", err, size);
  h->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
  if ((r = cudaMalloc(&h->flush, h->flush_bytes)) != cudaSuccess)
    return cuda_fail(-1, r, "cannot allocate the L2 flush buffer", err, size);
  return 0;
}

void harness_free(harness *h) {
  if (h->flush)
    cudaFree(h->flush);
  if (h->start)
    cudaEventDestroy(h->start);
  if (h->stop)
    cudaEventDestroy(h->stop);
  for (int i = 0; i < h->nstreams; i++)
    cudaStreamDestroy(h->streams[i]);
  if (h->work)
    cudaStreamDestroy(h->work);
  pthread_cond_destroy(&h->gate.cond);
  pthread_mutex_destroy(&h->gate.lock);
  memset(h, 0, sizeof *h);
}

void harness_use_stream(harness *h, int i) {
  if (!h->nstreams)
    return;
  h->current = i % h->nstreams;
  h->stream = h->streams[h->current];
}

int harness_load(const char *dir, const kb_variant *v, const kb_entry *e, hn_lib *lib,
                 char *err, size_t size) {
  char path[4096], stem[256];
  manifest_stem(v, stem, sizeof stem);
  snprintf(path, sizeof path, "%.3800s/%s.so", dir, stem);
  lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  lib->call = NULL;
  if (!lib->handle) {
    snprintf(err, size, "load: %s", dlerror());
    return -1;
  }
  *(void **)&lib->call = dlsym(lib->handle, e->shim);
  if (!lib->call) {
    snprintf(err, size, "load: %s.so has no %s", stem, e->shim);
    return -1;
  }
  return 0;
}

/* ---- buffers ---- */

int harness_alloc(hn_set *set, const kb_entry *e, const kb_value *s, size_t guard,
                  char *err, size_t size) {
  int n = e->nbuffer;
  cudaError_t r = cudaSuccess;
  char text[512];
  memset(set, 0, sizeof *set);
  set->n = n;
  set->guard = guard;
  set->elems = calloc((size_t)n, sizeof *set->elems);
  set->bytes = calloc((size_t)n, sizeof *set->bytes);
  set->alloc = calloc((size_t)n, sizeof *set->alloc);
  set->data = calloc((size_t)n, sizeof *set->data);
  set->guards = calloc((size_t)n, sizeof *set->guards);
  if (!set->elems || !set->bytes || !set->alloc || !set->data || !set->guards) {
    snprintf(err, size, "out of host memory");
    return -1;
  }
  for (int k = 0; k < n; k++) {
    const kb_buffer *b = &e->buffers[k];
    set->elems[k] = b->elems(s);
    set->bytes[k] = (size_t)set->elems[k] * ec_size(b->type);
    set->total += set->bytes[k];
    size_t whole = set->bytes[k] + 2 * guard;
    if ((r = cudaMalloc((void **)&set->alloc[k], whole)) != cudaSuccess ||
        (guard && (r = cudaMallocHost((void **)&set->guards[k], 2 * guard)) != cudaSuccess)) {
      harness_error_text(r, text, sizeof text);
      snprintf(err, size, "cannot allocate %zu bytes for buffer '%s': %s", whole, b->name,
               text);
      return -1;
    }
    set->data[k] = set->alloc[k] + guard;
    if (guard &&
        ((r = cudaMemset(set->alloc[k], GUARD_BYTE, guard)) != cudaSuccess ||
         (r = cudaMemset(set->alloc[k] + guard + set->bytes[k], GUARD_BYTE, guard)) !=
             cudaSuccess)) {
      harness_error_text(r, text, sizeof text);
      snprintf(err, size, "cannot set guard bytes: %s", text);
      return -1;
    }
  }
  return 0;
}

void harness_release(hn_set *set) {
  for (int k = 0; k < set->n; k++) {
    if (set->alloc && set->alloc[k])
      cudaFree(set->alloc[k]);
    if (set->guards && set->guards[k])
      cudaFreeHost(set->guards[k]);
  }
  free(set->elems);
  free(set->bytes);
  free(set->alloc);
  free(set->data);
  free(set->guards);
  memset(set, 0, sizeof *set);
}

int harness_alloc_slots(const hn_set *set, const kb_entry *e, void **slots, char *err,
                        size_t size) {
  for (int k = 0; k < set->n; k++) {
    slots[k] = NULL;
    if (e->buffers[k].role == KB_IN)
      continue;
    cudaError_t r = cudaMalloc(&slots[k], set->bytes[k]);
    if (r != cudaSuccess) {
      slots[k] = NULL;
      cuda_fail(0, r, "cannot allocate a copy of an output", err, size);
      return -1;
    }
  }
  return 0;
}

void harness_free_slots(const hn_set *set, void **slots) {
  for (int k = 0; k < set->n; k++) {
    if (slots[k])
      cudaFree(slots[k]);
    slots[k] = NULL;
  }
}

/*
 * Make memory the entry may allocate hold garbage: take a block the size of this shape's
 * buffers from cudaMalloc and from the stream's pool, fill it and give it back, so that
 * an allocation made by the entry right after is likely to reuse it. Failures here only
 * make the check weaker; they are cleared.
 */
static void dirty(harness *h, size_t bytes) {
  void *p = NULL;
  bytes = bytes < (1u << 20) ? (1u << 20) : bytes > ((size_t)1 << 30) ? ((size_t)1 << 30) : bytes;
  if (cudaMalloc(&p, bytes) == cudaSuccess) {
    cudaMemset(p, DIRT_BYTE, bytes);
    cudaFree(p);
  }
  if (cudaMallocAsync(&p, bytes, h->stream) == cudaSuccess) {
    cudaMemsetAsync(p, DIRT_BYTE, bytes, h->stream);
    cudaFreeAsync(p, h->stream);
  }
  cudaGetLastError();
}

int harness_fill(harness *h, hn_set *set, const ec_draw *in, int role_mask, char *why,
                 size_t size) {
  for (int k = 0; k < set->n; k++) {
    int role = h->e->buffers[k].role;
    if (!(role_mask & (1 << role)) || role == KB_OUT)
      continue;
    int r = gc_fill(set->data[k], set->elems[k], &in[k], h->stream);
    if (r != cudaSuccess)
      return cuda_fail(HN_BROKEN, (cudaError_t)r, "runner: cannot draw an input", why, size);
  }
  return HN_OK;
}

/* Everything before the call: dirt, inputs, poison. */
static int prepare(harness *h, hn_set *set, const ec_draw *in, int poison, char *why,
                   size_t size) {
  cudaError_t r = cudaGetLastError();
  if (r != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: a CUDA error is pending before the call", why,
                     size);
  dirty(h, set->total);
  int v = harness_fill(h, set, in, 1 << KB_IN | 1 << KB_INOUT, why, size);
  if (v != HN_OK)
    return v;
  for (int k = 0; k < set->n; k++)
    if (h->e->buffers[k].role == KB_OUT &&
        (r = cudaMemsetAsync(set->data[k], poison, set->bytes[k], h->stream)) != cudaSuccess)
      return cuda_fail(HN_BROKEN, r, "runner: cannot poison an output", why, size);
  return HN_OK;
}

/* The first guard byte of buffer k that changed: negative before the data, positive
 * (1-based) after it; 0 when both guards are intact. */
static long long guard_hit(const hn_set *set, int k) {
  const unsigned char *p = set->guards[k];
  size_t g = set->guard;
  for (size_t i = g; i-- > 0;)
    if (p[i] != GUARD_BYTE)
      return -(long long)(g - i);
  for (size_t i = 0; i < g; i++)
    if (p[g + i] != GUARD_BYTE)
      return (long long)i + 1;
  return 0;
}

/* Queue, on the call's stream, the copies of the outputs into out[] and of the guards into
 * host memory. */
static cudaError_t read_outputs(harness *h, hn_set *set, void *const *out) {
  cudaError_t r = cudaSuccess;
  for (int k = 0; k < set->n && r == cudaSuccess; k++) {
    if (out && out[k] && h->e->buffers[k].role != KB_IN)
      r = cudaMemcpyAsync(out[k], set->data[k], set->bytes[k], cudaMemcpyDeviceToDevice,
                          h->stream);
    if (set->guard && r == cudaSuccess)
      r = cudaMemcpyAsync(set->guards[k], set->alloc[k], set->guard, cudaMemcpyDeviceToHost,
                          h->stream);
    if (set->guard && r == cudaSuccess)
      r = cudaMemcpyAsync(set->guards[k] + set->guard, (unsigned char *)set->data[k] + set->bytes[k],
                          set->guard, cudaMemcpyDeviceToHost, h->stream);
  }
  return r;
}

/*
 * Everything after the call: the launch error, the entry's stream, the outputs read on
 * that stream, then the held streams let go and the whole device (work left elsewhere),
 * the guards and the inputs. entry_error is what the entry returned, or the graph
 * launch's error.
 */
static int collect(harness *h, hn_set *set, const ec_draw *in, void *const *out,
                   int entry_error, const char *entry_what, int held, char *why,
                   size_t size) {
  const kb_entry *e = h->e;
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaStreamSynchronize(h->stream);
  cudaError_t read = sync == cudaSuccess ? read_outputs(h, set, out) : cudaSuccess;
  if (read == cudaSuccess && sync == cudaSuccess)
    read = cudaStreamSynchronize(h->stream);
  if (held)
    gate_open(&h->gate);
  cudaError_t device = cudaDeviceSynchronize();
  cudaError_t late = cudaGetLastError();

  if (entry_error != 0) {
    char text[512];
    harness_error_text(entry_error, text, sizeof text);
    snprintf(why, size, "%s %s", entry_what, text);
    return HN_FAIL;
  }
  if (launch != cudaSuccess)
    return cuda_fail(HN_FAIL, launch, "cuda error at launch", why, size);
  if (sync != cudaSuccess)
    return cuda_fail(HN_FAIL, sync, "cuda error in the entry's stream", why, size);
  if (read != cudaSuccess)
    return cuda_fail(HN_FAIL, read, "cuda error while reading the outputs", why, size);
  if (device != cudaSuccess || late != cudaSuccess)
    return cuda_fail(HN_FAIL, device != cudaSuccess ? device : late,
                     "cuda error in work left running after the entry's stream completed",
                     why, size);
  for (int k = 0; k < set->n; k++) {
    long long hit = set->guard ? guard_hit(set, k) : 0;
    if (hit) {
      snprintf(why, size, "out of bounds: a write %s buffer '%s' (guard byte %lld %s it)",
               hit < 0 ? "before the start of" : "past the end of", e->buffers[k].name,
               hit < 0 ? -hit : hit, hit < 0 ? "before" : "after");
      return HN_FAIL;
    }
  }
  for (int k = 0; k < set->n; k++) {
    int64_t first;
    if (e->buffers[k].role != KB_IN)
      continue;
    int r = gc_fill_check(set->data[k], set->elems[k], &in[k], h->work, &first);
    if (r != cudaSuccess)
      return cuda_fail(HN_BROKEN, (cudaError_t)r, "runner: cannot check an input", why, size);
    if (first >= 0) {
      snprintf(why, size, "input modified: '%s' element %lld of %lld changed",
               e->buffers[k].name, (long long)first, (long long)set->elems[k]);
      return HN_FAIL;
    }
  }
  return HN_OK;
}

int harness_call(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                 const ec_draw *in, int poison, void *const *out, char *why, size_t size) {
  int v = prepare(h, set, in, poison, why, size);
  int held = h->hold && h->nstreams > 0;
  if (v == HN_OK && held)
    v = hold_others(h, why, size);
  if (v != HN_OK) {
    if (held)
      gate_open(&h->gate);
    cudaDeviceSynchronize();
    return v;
  }
  double t0 = now_s();
  int rc = lib->call(set->data, s, (void *)h->stream);
  int r = collect(h, set, in, out, rc, "entry returned", held, why, size);
  h->call_s = now_s() - t0;
  return r;
}

int harness_capture(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                    cudaGraphExec_t *exec, char *why, size_t size) {
  cudaGraph_t graph = NULL;
  cudaError_t r = cudaGetLastError();
  *exec = NULL;
  if (r != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: a CUDA error is pending before capture", why, size);
  if ((r = cudaStreamBeginCapture(h->stream, cudaStreamCaptureModeGlobal)) != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: cannot begin a capture", why, size);
  int rc = lib->call(set->data, s, (void *)h->stream);
  cudaError_t end = cudaStreamEndCapture(h->stream, &graph);
  cudaError_t last = cudaGetLastError();
  if (end != cudaSuccess || !graph) {
    if (graph)
      cudaGraphDestroy(graph);
    return cuda_fail(HN_FAIL, end, "cannot capture the entry into a CUDA graph", why, size);
  }
  if (rc != 0 || last != cudaSuccess) {
    cudaGraphDestroy(graph);
    return cuda_fail(HN_FAIL, rc != 0 ? (cudaError_t)rc : last,
                     "cannot capture the entry into a CUDA graph", why, size);
  }
  r = cudaGraphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  if (r != cudaSuccess) {
    *exec = NULL;
    cudaGetLastError();
    return cuda_fail(HN_FAIL, r, "cannot instantiate the captured CUDA graph", why, size);
  }
  return HN_OK;
}

int harness_replay(harness *h, cudaGraphExec_t exec, hn_set *set, const ec_draw *in,
                   int poison, void *const *out, char *why, size_t size) {
  int v = prepare(h, set, in, poison, why, size);
  if (v != HN_OK)
    return v;
  cudaError_t r = cudaGraphLaunch(exec, h->stream);
  return collect(h, set, in, out, r, "cudaGraphLaunch returned", 0, why, size);
}

int harness_time(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s, double *ms,
                 char *why, size_t size) {
  cudaError_t r;
  float t = 0;
  /* vary the byte so that no cache or compression can keep the flush cheap */
  r = cudaMemsetAsync(h->flush, (int)(h->flushes++ & 0x7f), h->flush_bytes, h->stream);
  if (r == cudaSuccess)
    r = cudaStreamSynchronize(h->stream);
  if (r == cudaSuccess)
    r = cudaEventRecord(h->start, h->stream);
  if (r != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: cannot prepare a timed call", why, size);
  int rc = lib->call(set->data, s, (void *)h->stream);
  cudaError_t rec = cudaEventRecord(h->stop, h->stream);
  cudaError_t sync = rec == cudaSuccess ? cudaEventSynchronize(h->stop) : rec;
  cudaError_t last = cudaGetLastError();
  if (rc != 0)
    return cuda_fail(HN_FAIL, (cudaError_t)rc, "entry returned (timed call)", why, size);
  if (sync != cudaSuccess || last != cudaSuccess)
    return cuda_fail(HN_FAIL, sync != cudaSuccess ? sync : last, "cuda error in a timed call",
                     why, size);
  if ((r = cudaEventElapsedTime(&t, h->start, h->stop)) != cudaSuccess)
    return cuda_fail(HN_BROKEN, r, "runner: cannot read the events", why, size);
  *ms = t;
  return HN_OK;
}
