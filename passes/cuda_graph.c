/*
 * cuda_graph.c: an entry's launch sequence replayed from a CUDA graph. A time loop of small
 * launches is paid for in host time: level3/039 (a GRU, 3072 steps of three launches)
 * spends most of its 43 ms queuing work, and replayed from a graph the same calls take 19.
 * The entry keeps its name, parameters and annotations and becomes a wrapper; its body, as
 * written and as earlier passes changed it, becomes a static function of its own:
 *
 *   static void gru_eager(const float *x, ..., cudaStream_t stream);   // above the annotations
 *   // kfuse: in  x  float[T][B][I] ...
 *   extern "C" void gru(const float *x, ..., cudaStream_t stream) {
 *     static kf_graph kf_graph_state; // kfuse cuda-graph: ...
 *     return kf_graph_call(kf_graph_state, stream, kf_graph_key(x, ..., L),
 *                          [&](cudaStream_t kf_stream) { return gru_eager(x, ..., kf_stream); });
 *   }
 *
 *   static void gru_eager(const float *x, ..., cudaStream_t stream) { ...the body... }
 *
 * kf_graph_call (passes/cuda/kf_graph.cuh) runs the first call of an argument tuple (the
 * arguments' bytes and the stream) eagerly, captures the second into a graph, and replays
 * it from then on; its fallbacks are there.
 *
 * Legal when the model shows a capture-safe body: the launch sequence traced (not opaque);
 * a stream parameter, the stream of every launch (none on the legacy default stream);
 * allocations, frees, memsets and copies in their stream-ordered *Async forms (or changed
 * by an earlier pass, whose code is kfuse's own); no other CUDA runtime call but those that
 * neither synchronize nor read device data on the host (cudaGetLastError,
 * cudaPeekAtLastError, cudaGetDevice, cudaDeviceGetAttribute, cudaFuncSetAttribute,
 * cudaFuncGetAttributes, cudaOccupancy*); the entry defined with its own `extern "C"`.
 * Library calls (cuBLAS, cuDNN) are captured as they are; a call that cannot be (a
 * synchronizing one) fails the capture at run time, and the entry then stays eager. What
 * the host computes between launches is a function of the arguments (the contract: calls
 * are independent), so a graph per argument tuple replays the same work.
 */
#include <string.h>

#include "pass.h"

/* passes/cuda/kf_graph.cuh, embedded at build time */
extern const unsigned char kf_graph_source[];

static const char *const harmless[] = {
    "cudaGetLastError", "cudaPeekAtLastError",  "cudaGetDevice", "cudaDeviceGetAttribute",
    "cudaFuncSetAttribute", "cudaFuncGetAttributes",
};

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

/* Why steps cannot be captured (the first step that cannot, with *at its location), or NULL. */
static const char *unsafe(const variant *v, int ei, const kstep *steps, int n, kloc *at) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    const char *why = NULL;
    *at = st->loc;
    if (variant_touched(v, ei, st->index))
      continue; /* kfuse's own code now */
    switch (st->kind) {
    case KS_LAUNCH:
      if (!st->stream || !strcmp(st->stream, "0") || !strcmp(st->stream, "nullptr") ||
          !strcmp(st->stream, "NULL") || !strcmp(st->stream, "cudaStreamLegacy"))
        why = arena_printf(v->m->arena, "'%s' is launched on the legacy default stream", st->callee);
      break;
    case KS_ALLOC:
    case KS_FREE:
    case KS_MEMSET:
    case KS_MEMCPY:
      if (!ends_with(st->callee, "Async"))
        why = arena_printf(v->m->arena, "%s synchronizes the host (its *Async form on the stream can be captured)",
                           st->callee);
      break;
    case KS_OTHER: {
      int ok = !strncmp(st->callee, "cudaOccupancy", 13);
      for (size_t k = 0; k < sizeof harmless / sizeof *harmless; k++)
        ok |= !strcmp(st->callee, harmless[k]);
      if (!ok)
        why = arena_printf(v->m->arena, "%s may synchronize or read device data on the host", st->callee);
      break;
    }
    default:
      break;
    }
    if (why)
      return why;
    if ((why = unsafe(v, ei, st->body, st->nbody, at)) || (why = unsafe(v, ei, st->orelse, st->norelse, at)))
      return why;
  }
  return NULL;
}

/* The offset of the `extern "C"` written just before the entry's definition, or 0. */
static unsigned linkage_begin(const kmodel *m, const kentry *e) {
  static const char linkage[] = "extern \"C\"";
  unsigned p = e->loc.begin;
  while (p > 0 && (m->text[p - 1] == ' ' || m->text[p - 1] == '\t' || m->text[p - 1] == '\n'))
    p--;
  size_t n = sizeof linkage - 1;
  if (p < n || strncmp(m->text + p - n, linkage, n))
    return 0;
  return p - (unsigned)n;
}

/* Why entry ei cannot be captured, with *at where, or NULL. */
static const char *refusal(const variant *v, int ei, kloc *at) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  *at = e->name_loc;
  if (e->opaque_why)
    return arena_printf(m->arena, "its launch sequence is not traced (%s)", e->opaque_why);
  if (e->stream_param < 0)
    return "it has no stream parameter: its work runs on the legacy default stream, which cannot be captured";
  if (!linkage_begin(m, e))
    return "its definition is not written `extern \"C\" ...` on its own (an extern \"C\" block?)";
  if (e->name_loc.end <= e->name_loc.begin || e->body_loc.begin <= e->name_loc.end)
    return "kfuse cannot find its parameter list";
  return unsafe(v, ei, e->steps, e->nsteps, at);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    kloc at;
    const char *why = refusal(v, ei, &at);
    if (why) {
      if (remarks)
        diag_report(d, DIAG_REMARK, m->path, at.line, at.col, "not captured: '%s': %s [-Rpass-missed=cuda-graph]",
                    e->name, why);
      continue;
    }
    if (!e->nsteps)
      continue;
    pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
    ps->entry = ei;
    ps->first_step = e->steps[0].index;
    ps->last_step = e->steps[e->nsteps - 1].index;
    ps->what = arena_printf(m->arena, "%s: its launch sequence (%d step%s)", e->name, e->nflat,
                            e->nflat == 1 ? "" : "s");
    found++;
  }
  return found;
}

/* The parameter list as written, "(...)", without what follows its parenthesis. */
static const char *param_list(const kmodel *m, const kentry *e) {
  unsigned b = e->name_loc.end, en = e->body_loc.begin;
  while (en > b && m->text[en - 1] != ')')
    en--;
  return arena_printf(m->arena, "%.*s", (int)(en - b), m->text + b);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const char *part = arena_printf(v->a, "cuda-graph@%s", e->name);
  kloc at;
  (void)values;
  /* captured once: a second wrapper would wrap the first */
  if (refusal(v, site->entry, &at) || variant_noted(v, part))
    return pass_site_gone(v, "cuda-graph", site, d);
  const char *eager = variant_fresh_name(v, arena_printf(v->a, "%s_eager", e->name));
  const char *params = param_list(m, e), *stream = e->params[e->stream_param].name;
  const char *ret = e->ret_spelling ? e->ret_spelling : "void";
  strbuf key = {0}, args = {0}, t = {0};
  for (int i = 0; i < e->nparams; i++) {
    sb_printf(&args, "%s%s", i ? ", " : "", i == e->stream_param ? "kf_stream" : e->params[i].name);
    if (i != e->stream_param)
      sb_printf(&key, "%s%s", key.len ? ", " : "", e->params[i].name);
  }
  sb_printf(&t, "extern \"C\" %s %s%s {\n", ret, e->name, params);
  sb_puts(&t, "  // kfuse cuda-graph: the calls below, replayed from a CUDA graph captured at the second call\n"
              "  // with the same arguments and stream (kf_graph_call)\n");
  sb_puts(&t, "  static kf_graph kf_graph_state;\n");
  sb_printf(&t, "  return kf_graph_call(kf_graph_state, %s, kf_graph_key(%s),\n", stream, key.s ? key.s : "");
  sb_printf(&t, "                       [&](cudaStream_t kf_stream) {\n"
                "                         return %s(%s);\n"
                "                       });\n}\n\n",
            eager, args.s);
  sb_printf(&t, "// %s's work as written, run eagerly (and captured) by the wrapper above\n", e->name);
  sb_printf(&t, "static %s %s", ret, eager);
  int ok = variant_replace_text(v, linkage_begin(m, e), e->name_loc.end, t.s);
  sb_free(&t);
  sb_free(&key);
  sb_free(&args);
  if (!ok) {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "cuda-graph: overlapping changes at %s; the variant is dropped",
                site->what);
    return 0;
  }
  variant_add_include(v, "<cstdio>");
  variant_add_include(v, "<cstdlib>");
  variant_add_include(v, "<mutex>");
  variant_add_include(v, "<string>");
  variant_add_include(v, "<type_traits>");
  variant_add_helper(v, "kf_graph", (const char *)kf_graph_source);
  variant_add_kernel(v, site->entry, arena_printf(v->a, "%s declaration", eager),
                     arena_printf(v->a, "static %s %s%s;", ret, eager, params));
  variant_note(v, part,
               arena_printf(v->a, "cuda-graph: %s -> replayed from a CUDA graph per argument tuple", site->what));
  return 1;
}

const pass pass_cuda_graph = {
    "cuda-graph",
    "replay an entry's launch sequence from a CUDA graph captured per argument tuple",
    find,
    get_params,
    apply,
    0, /* by default */
    1, /* optional: measured with and without */
    0, /* not parsed again */
};
