/*
 * pool_scratch.c: scratch allocations served from a pool that keeps its memory. A
 * reference allocates its intermediates on every call:
 *
 *   cudaMallocAsync(&logp, sizeof(float) * B * C, stream);  ...  cudaFreeAsync(logp, stream);
 *
 * and the default memory pool returns freed memory to the system at the next
 * synchronization, so every call maps its scratch anew: measured on the H200, 0.7 ms of
 * cross_entropy's 1.04 (512 MB a call) and 6.5 ms of cumsum_reverse's 15.1 (4.3 GB), where
 * PyTorch's caching allocator reuses its blocks. The pass allocates from kfuse's own pool
 * instead (one per device, made on first use, its release threshold at the maximum), so
 * that what one call frees the next reuses:
 *
 *   kf_scratch_malloc(&logp, sizeof(float) * B * C, stream);  ...  cudaFreeAsync(logp, stream);
 *
 * A synchronous `cudaMalloc(&p, n)` freed by `cudaFree(p)` in the same entry becomes the
 * same pair on the entry's stream (all the entry's work is on it: the contract). The
 * pool's memory stays with the process, at most the largest scratch of the calls made.
 * Where a device has no memory pools, kf_scratch_malloc falls back to cudaMallocAsync.
 *
 * Legal when: the allocation is a top-level step no earlier pass changed (one a fusion
 * removed has nothing to pool), written `cudaMallocAsync(&p, n, stream)` or, with its
 * `cudaFree(p)` a later top-level step and a stream parameter in the entry, `cudaMalloc(&p,
 * n)`. One site per entry: all its allocations.
 */
#include <string.h>

#include "pass.h"

/* The helpers, printed once above the first entry that uses them. */
static const char helper_name[] = "kf_scratch_malloc";
static const char helper_text[] =
    "// kfuse pool-scratch: scratch memory from a pool per device that keeps what is freed, so\n"
    "// that the next call reuses it instead of mapping it anew (the default pool releases it)\n"
    "#include <mutex>\n"
    "static cudaMemPool_t kf_scratch_pool() {\n"
    "  static std::once_flag kf_once[64];\n"
    "  static cudaMemPool_t kf_pools[64];\n"
    "  int dev = 0;\n"
    "  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)\n"
    "    return NULL;\n"
    "  std::call_once(kf_once[dev], [dev] {\n"
    "    int supported = 0;\n"
    "    cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev);\n"
    "    cudaMemPoolProps props = {};\n"
    "    props.allocType = cudaMemAllocationTypePinned;\n"
    "    props.location.type = cudaMemLocationTypeDevice;\n"
    "    props.location.id = dev;\n"
    "    cudaMemPool_t pool = NULL;\n"
    "    if (supported && cudaMemPoolCreate(&pool, &props) == cudaSuccess) {\n"
    "      unsigned long long keep = ~0ull;\n"
    "      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);\n"
    "      kf_pools[dev] = pool;\n"
    "    }\n"
    "  });\n"
    "  return kf_pools[dev];\n"
    "}\n"
    "template <typename T>\n"
    "static cudaError_t kf_scratch_malloc(T** p, size_t bytes, cudaStream_t stream) {\n"
    "  cudaMemPool_t pool = kf_scratch_pool();\n"
    "  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;  // a graph's memory is its own\n"
    "  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone)\n"
    "    pool = NULL;\n"
    "  return pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(p), bytes, pool, stream)\n"
    "              : cudaMallocAsync(reinterpret_cast<void**>(p), bytes, stream);\n"
    "}\n";

/* The cudaFree(p) of a synchronous allocation st, a later top-level step, or NULL. */
static const kstep *free_of(const variant *v, int ei, const kstep *st) {
  const kentry *e = &v->m->entries[ei];
  for (const kstep *f = st + 1; f < e->steps + e->nsteps; f++)
    if (f->kind == KS_FREE && !f->async && f->var && !strcmp(f->var, st->var) && f->nargs == 1 &&
        !variant_touched(v, ei, f->index))
      return f;
  return NULL;
}

/* Whether top-level step st is an allocation to pool. */
static int poolable(const variant *v, int ei, const kstep *st) {
  const kentry *e = &v->m->entries[ei];
  if (st->kind != KS_ALLOC || !st->var || variant_touched(v, ei, st->index))
    return 0;
  if (!strcmp(st->callee, "cudaMallocAsync"))
    return st->nargs == 3;
  return !strcmp(st->callee, "cudaMalloc") && st->nargs == 2 && e->stream_param >= 0 && free_of(v, ei, st);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  (void)remarks;
  (void)d;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    int n = 0, first = -1, last = -1;
    if (e->opaque_why)
      continue;
    for (int i = 0; i < e->nsteps; i++)
      if (poolable(v, ei, &e->steps[i])) {
        n++;
        if (first < 0)
          first = e->steps[i].index;
        last = e->steps[i].index;
      }
    if (!n)
      continue;
    pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
    ps->entry = ei;
    ps->first_step = first;
    ps->last_step = last;
    ps->what = arena_printf(m->arena, "%s: %d scratch allocation%s", e->name, n, n > 1 ? "s" : "");
    found++;
  }
  return found;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  int ok = 1, n = 0;
  (void)values;
  for (int i = 0; i < e->nsteps && ok; i++) {
    const kstep *st = &e->steps[i];
    if (!poolable(v, site->entry, st))
      continue;
    const char *stream = st->async ? st->args[2].text : e->params[e->stream_param].name;
    if (!st->async) {
      const kstep *f = free_of(v, site->entry, st);
      ok = variant_replace_step(v, site->entry, f, arena_printf(v->a, "cudaFreeAsync(%s, %s)", f->args[0].text, stream));
    }
    ok = ok && variant_replace_step(v, site->entry, st,
                                    arena_printf(v->a, "%s(%s, %s, %s)", helper_name, st->args[0].text,
                                                 st->args[1].text, stream));
    n++;
  }
  if (!ok || !n)
    return pass_site_gone(v, "pool-scratch", site, d);
  int have = 0;
  for (int i = 0; i < v->nkernels; i++)
    have |= !strcmp(v->kernels[i].name, helper_name);
  if (!have)
    variant_add_kernel(v, site->entry, helper_name, helper_text);
  variant_note(v, arena_printf(v->a, "pool-scratch@%s", e->name), arena_printf(v->a, "pool-scratch: %s", site->what));
  return 1;
}

const pass pass_pool_scratch = {
    "pool-scratch",
    "allocate scratch from a pool that keeps freed memory for the next call",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
