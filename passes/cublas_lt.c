/*
 * cublas_lt.c: the reference's own cublasSgemm calls, each as one cuBLASLt matmul whose
 * engine is timed per shape. A reference that calls cuBLAS itself gets the engine cuBLAS's
 * heuristic picks, and for the small products of a recurrent network's time loop that
 * engine can be several times slower than the best one cuBLASLt offers for the shape
 * (ncu on the H200: level3/039's 10 x 768 x 256 product, one per GRU time step, ran 26 us
 * with a 66-way split of its k = 256). The call keeps its text and arguments and only
 * changes its callee:
 *
 *   cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
 *   kf_cublas_sgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
 *
 * kf_cublas_sgemm (passes/cuda/kf_cublas_sgemm.cuh) runs kf_lt_matmul on the handle's
 * stream (passes/cuda/kf_lt_matmul.cuh: a plan per shape, the fastest of the heuristic's
 * first eight engines timed at the shape's first call), and cublasSgemm itself where the
 * handle's pointer mode or math mode is not FP32's with host scalars, or cuBLASLt cannot
 * take the call. Same result up to the order of the sums (the verifier's tolerance).
 *
 * Legal when: the call is the reference's `cublasSgemm` (cublas_v2.h's macro or the _v2
 * function by name) with its fourteen arguments, written out where it stands (not through
 * a macro of the file), in the entry's body, its host loops and conditions, or a host
 * helper of the file; a call in the entry that an earlier pass changed is not rewritten.
 * A helper's call is rewritten once in the helper, for every call of it alike. One site
 * per entry: all its calls.
 */
#include <string.h>

#include "pass.h"

/* passes/cuda/kf_lt_matmul.cuh and kf_cublas_sgemm.cuh, embedded at build time */
extern const unsigned char kf_lt_matmul_source[], kf_cublas_sgemm_source[];

/* One call to rewrite: where its callee's name is, and whether it is the entry's own step
 * (else a helper's, shared by the helper's calls). */
typedef struct lt_call {
  const kstep *st;
  unsigned name_end;     /* the callee's name is [st->loc.begin, name_end) */
  int in_helper;
  int top;               /* the kstep.index of its top-level step */
} lt_call;

typedef struct lt_walk {
  const variant *v;
  int entry;
  lt_call *calls;
  int ncalls, cap;
  int remarks;
  diag *d;
} lt_walk;

static int is_word(char c) {
  return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* The end of the callee's name when the call's text starts with `cublasSgemm` or
 * `cublasSgemm_v2` followed by its parenthesis, else 0. */
static unsigned name_end(const kmodel *m, const kstep *st) {
  static const char *const names[] = {"cublasSgemm_v2", "cublasSgemm"};
  for (int i = 0; i < 2; i++) {
    size_t n = strlen(names[i]);
    unsigned p = st->loc.begin + (unsigned)n;
    if (p > st->loc.end || strncmp(m->text + st->loc.begin, names[i], n) || is_word(m->text[p]))
      continue;
    unsigned q = p;
    while (q < st->loc.end && (m->text[q] == ' ' || m->text[q] == '\t' || m->text[q] == '\n'))
      q++;
    return q < st->loc.end && m->text[q] == '(' ? p : 0;
  }
  return 0;
}

static void walk(lt_walk *w, const kstep *steps, int n, int in_helper, int top) {
  const kmodel *m = w->v->m;
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    int t = top >= 0 ? top : st->index;
    walk(w, st->body, st->nbody, in_helper || st->kind == KS_HOSTCALL, t);
    walk(w, st->orelse, st->norelse, in_helper, t);
    if (st->kind != KS_LIBCALL || !st->callee ||
        (strcmp(st->callee, "cublasSgemm_v2") && strcmp(st->callee, "cublasSgemm")))
      continue;
    unsigned end = name_end(m, st);
    const char *why = NULL;
    if (st->nargs != 14)
      why = "it does not have cublasSgemm's fourteen arguments";
    else if (!end)
      why = "its callee is not written out where it stands (a macro of the file?)";
    else if (!in_helper && variant_touched(w->v, w->entry, st->index))
      why = "an earlier pass changed it";
    else if (!in_helper && !model_find_step(&m->entries[w->entry], st->index))
      why = "kfuse cannot rewrite a statement there";
    if (why) {
      if (w->remarks)
        diag_report(w->d, DIAG_REMARK, m->path, st->loc.line, st->loc.col,
                    "not rewritten: cublasSgemm call: %s [-Rpass-missed=cublas-lt]", why);
      continue;
    }
    int seen = 0; /* a helper's call once, however many calls of the helper the entry makes */
    for (int k = 0; k < w->ncalls; k++)
      seen |= w->calls[k].st->loc.begin == st->loc.begin;
    if (seen)
      continue;
    lt_call *c = ARENA_PUSH(m->arena, w->calls, w->ncalls, w->cap);
    c->st = st;
    c->name_end = end;
    c->in_helper = in_helper;
    c->top = t;
  }
}

static void collect(lt_walk *w, const variant *v, int entry, int remarks, diag *d) {
  memset(w, 0, sizeof *w);
  w->v = v;
  w->entry = entry;
  w->remarks = remarks;
  w->d = d;
  const kentry *e = &v->m->entries[entry];
  if (!e->opaque_why)
    walk(w, e->steps, e->nsteps, 0, -1);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  for (int ei = 0; ei < m->nentries; ei++) {
    lt_walk w;
    collect(&w, v, ei, remarks, d);
    if (!w.ncalls)
      continue;
    pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
    ps->entry = ei;
    ps->first_step = ps->last_step = w.calls[0].top;
    int helpers = 0;
    for (int i = 0; i < w.ncalls; i++) {
      if (w.calls[i].top < ps->first_step)
        ps->first_step = w.calls[i].top;
      if (w.calls[i].top > ps->last_step)
        ps->last_step = w.calls[i].top;
      helpers += w.calls[i].in_helper;
    }
    ps->what = arena_printf(m->arena, "%s: %d cublasSgemm call%s%s", m->entries[ei].name, w.ncalls,
                            w.ncalls > 1 ? "s" : "", helpers ? " (in host helpers too)" : "");
    found++;
  }
  return found;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const char *part = arena_printf(v->a, "cublas-lt@%s", e->name);
  lt_walk w;
  (void)values;
  collect(&w, v, site->entry, 0, d);
  /* a helper's call rewritten already is rewritten again to the same text (another entry
   * that calls the helper may apply too), so the entry's own note tells it was done */
  int ok = w.ncalls > 0 && !variant_noted(v, part);
  for (int i = 0; i < w.ncalls && ok; i++) {
    const lt_call *c = &w.calls[i];
    if (c->in_helper)
      ok = variant_replace_text(v, c->st->loc.begin, c->name_end, "kf_cublas_sgemm");
    else
      ok = variant_replace_step(v, site->entry, c->st,
                                arena_printf(v->a, "kf_cublas_sgemm%.*s", (int)(c->st->loc.end - c->name_end),
                                             m->text + c->name_end));
  }
  if (!ok)
    return pass_site_gone(v, "cublas-lt", site, d);
  variant_add_include(v, "<cublas_v2.h>");
  variant_add_include(v, "<cublasLt.h>");
  variant_add_include(v, "<cstdint>");
  variant_add_include(v, "<cstring>");
  variant_add_include(v, "<mutex>");
  /* above the file's own code: a host helper of the file may call it */
  variant_add_early_helper(v, "kf_lt_matmul", (const char *)kf_lt_matmul_source);
  variant_add_early_helper(v, "kf_cublas_sgemm", (const char *)kf_cublas_sgemm_source);
  variant_note(v, part,
               arena_printf(v->a, "cublas-lt: %s -> kf_cublas_sgemm (cuBLASLt, engine timed per shape)", site->what));
  return 1;
}

const pass pass_cublas_lt = {
    "cublas-lt",
    "run the reference's cublasSgemm calls as cuBLASLt matmuls with the engine timed per shape",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
