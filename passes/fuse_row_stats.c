/*
 * fuse_row_stats.c: two row statistics computed in one pass over the row. The references
 * compute a softmax's or a norm's statistics one kernel each, every kernel a block row
 * reduction (reduce.h) that reads the whole row:
 *
 *   row_max_kernel:    m[row] = max_j x(j)                      then
 *   row_sumexp_kernel: s[row] = sum_j exp(x(j) - m[row])         (online softmax)
 *
 *   plane_mean_kernel: mu[row] = g1(sum_j x(j))                  then
 *   plane_rstd_kernel: r[row]  = g2(sum_j (x(j) - mu[row])^2)    (mean and variance)
 *
 * so each row is read twice; and so is a row that two independent reductions read (a
 * triplet loss's distances from the anchor to the positive and to the negative). The pass
 * replaces the two launches with one kernel that reads the row once and stores both:
 *
 *   - online softmax: each thread keeps a running max and the sum of exp(x - max) over
 *     what it has seen, rescaled by exp(old max - new max) when the max grows (two pairs a
 *     thread, for the float4's halves); pairs merge the same way across threads;
 *   - mean and variance: each thread keeps a count, a running mean and the sum of squared
 *     deviations from it (Welford; per float4, the four's own mean and deviations merged
 *     in), and the plain sum for g1; threads merge by Chan's formula. Then
 *     sum_j (x(j) - mu)^2 = M2 + n (mean - mu)^2 with mu = g1(sum) as the reference
 *     stores it. No E[x^2] - E[x]^2: nothing cancels when the mean is far from zero;
 *   - two independent reductions that load something alike: both terms computed at each
 *     element, each into its own accumulator.
 *
 * The row is loaded 16 bytes at a time where it is 16-byte aligned (checked at run time),
 * with a scalar loop for the rest; the block combines by warp shuffles, then one warp over
 * the warps' values. Measured by hand first (benchmarks/RESULTS.md, session 4): 024's two
 * reductions 5.1 ms -> 1.4 ms, 034's 3.4 ms -> 1.6 ms on the H200.
 *
 * Legal when (checked on the model; otherwise nothing changes and, for two block
 * reductions where the second reads the first's value, a remark says why):
 *   - two consecutive top-level launches, both block row reductions (reduce.h) of float
 *     accumulators, with the same grid (one-dimensional) and stream, neither changed by
 *     another pass;
 *   - either the second reads the first's value in a declaration `mu = out1[X1]` (the same
 *     buffer and index the first stores at), and reads that buffer nowhere else; its
 *     row's length is the first's; it sums exp(f - mu) where the first takes the max of f
 *     and stores it as is (softmax), or (f - mu) * (f - mu) where the first sums f (norm),
 *     f being the first's term (the same buffers at the same indices, the same
 *     arithmetic: compared through the launches' arguments and the locals' definitions);
 *     or the second does not read the first's output at all, and the two terms share a load;
 *   - neither output is a buffer either kernel reads, and they are two buffers.
 * Sums are reassociated and the variance is computed from merged moments: the results
 * differ by rounding, which the entry's tolerance covers and the verifier checks.
 *
 * Parameter: block (threads a row: 1024, 512).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "reduce.h"

enum { MAX_PARAMS = 64 };

typedef enum stats_kind { STATS_SOFTMAX, STATS_MOMENTS, STATS_SIBLINGS } stats_kind;

/* A pair of launches the pass fuses. */
typedef struct stats_pair {
  block_red r[2];
  stats_kind kind;
  int rv;                       /* the second kernel's local holding the first's value */
  const char *exp_fn;           /* softmax: the second's exp function */
} stats_pair;

/* ---- the pattern ---- */

static int is_exp(const char *fn) { return !strcmp(fn, "expf") || !strcmp(fn, "__expf") || !strcmp(fn, "exp"); }

/* d - mu (d the second's copy of the first's term): d, else NULL */
static const kexpr *minus_rv(const kkernel *k, const kexpr *e, int rv, int j) {
  e = kx_strip(kx_resolve(k, e, j));
  if (!e || e->kind != KE_BINARY || e->op != KO_SUB || !kx_is_var(e->b, rv))
    return NULL;
  return e->a;
}

/* Whether r stores its block's value as it is: out[X] = smem[0]. */
static int is_smem_zero(const block_red *r) {
  const kexpr *v = kx_strip(r->store->value);
  const kexpr *i = v && v->kind == KE_LOAD && v->param < 0 && v->var == r->smem ? kx_strip(v->a) : NULL;
  return i && i->kind == KE_INT && i->ival == 0;
}

/* Whether some load in e (through the locals' definitions) is one that f makes too. */
static int shares_load(const kx_cmp *c, const kexpr *e, const kexpr *f, int depth) {
  if (!e || depth > 32)
    return 0;
  e = kx_resolve(c->k[0], e, c->j[0]);
  if (e->kind == KE_LOAD && e->param >= 0) {
    /* search f for the same load */
    const kexpr *stack[64];
    int n = 0;
    stack[n++] = f;
    while (n) {
      const kexpr *x = stack[--n];
      if (!x)
        continue;
      x = kx_resolve(c->k[1], x, c->j[1]);
      if (x->kind == KE_LOAD && kx_same(c, e, x))
        return 1;
      if (n + 3 + x->nargs > 64)
        return 0;
      stack[n++] = x->a;
      stack[n++] = x->b;
      stack[n++] = x->c;
      for (int i = 0; i < x->nargs; i++)
        stack[n++] = x->args[i];
    }
    return 0;
  }
  for (int i = 0; i < e->nargs; i++)
    if (shares_load(c, e->args[i], f, depth + 1))
      return 1;
  return shares_load(c, e->a, f, depth + 1) || shares_load(c, e->b, f, depth + 1) ||
         shares_load(c, e->c, f, depth + 1);
}

/* The chain patterns: the second reads the first's value as rv. */
static const char *check_chain(const kmodel *m, const kx_cmp *c, stats_pair *p) {
  const block_red *a = &p->r[0], *b = &p->r[1];
  const kstep *st1 = b->st;
  const karg *out0 = &a->st->args[a->out];
  const kexpr *rvload = kx_strip(b->k->vars[p->rv].init);
  if (!kx_same(c, a->store->index, b->k->accesses[rvload->access].flat_index))
    return "the second reads the first's buffer at another index than the first stores at";
  int reads = 0;
  for (int i = 0; i < b->k->naccesses; i++)
    if (b->k->accesses[i].param >= 0 && karg_same(&st1->args[b->k->accesses[i].param], out0))
      reads++;
  if (reads != 1)
    return "the second reads the first's buffer more than once";
  if (b->k->vars[p->rv].type != KT_F32)
    return "the second holds the first's value in no float";
  if (b->loop.fn)
    return "the second takes no sum";
  const kexpr *t = kx_strip(b->loop.term);
  int bj = b->loop.loop->loop_var;
  if (a->loop.fn && (!strcmp(a->loop.fn, "fmaxf") || !strcmp(a->loop.fn, "max"))) {
    if (t->kind != KE_CALL || t->nargs != 1 || !is_exp(t->text))
      return "the first takes a max and the second sums no exp(... - max)";
    const kexpr *d = minus_rv(b->k, t->args[0], p->rv, bj);
    if (!d || !kx_same(c, a->loop.term, d))
      return "the second sums exp(f - max) for another f than the first's";
    if (!is_smem_zero(a))
      return "the first does not store its max as it is";
    p->kind = STATS_SOFTMAX;
    p->exp_fn = t->text;
    return NULL;
  }
  if (a->loop.fn)
    return "the first is neither a max nor a sum";
  const kexpr *u = t->kind == KE_BINARY && t->op == KO_MUL ? t->a : NULL, *w = u ? t->b : NULL;
  const kexpr *du = u ? minus_rv(b->k, u, p->rv, bj) : NULL, *dw = w ? minus_rv(b->k, w, p->rv, bj) : NULL;
  if (!du || !dw)
    return "the first takes a sum and the second sums no (f - value) * (f - value)";
  kx_cmp self = {{b->k, b->k}, {st1, st1}, {bj, bj}};
  if (!kx_same(&self, du, dw) || !kx_same(c, a->loop.term, du))
    return "the second sums the squares of another f than the first sums";
  (void)m;
  p->kind = STATS_MOMENTS;
  return NULL;
}

/* Checks the launches st0, st1 (consecutive); fills *p. NULL when they fuse; otherwise why
 * not, with *quiet set when they are not two block reductions that share a row at all. */
static const char *check_pair(const kmodel *m, const kstep *st0, const kstep *st1, stats_pair *p, int *quiet) {
  memset(p, 0, sizeof *p);
  p->rv = -1;
  *quiet = 1;
  if (block_red_match(m, st0, &p->r[0]) || block_red_match(m, st1, &p->r[1]))
    return "not two block reductions";
  const block_red *a = &p->r[0], *b = &p->r[1];
  const karg *out0 = &st0->args[a->out], *out1 = &st1->args[b->out];
  kx_cmp c = {{a->k, b->k}, {st0, st1}, {a->loop.loop->loop_var, b->loop.loop->loop_var}};
  /* the second's declaration mu = out0[X0], or loads the two make alike */
  for (int i = 0; i < b->npre && p->rv < 0; i++) {
    const kexpr *v = kx_strip(b->pre[i]->value);
    if (v && v->kind == KE_LOAD && v->param >= 0 && karg_same(&st1->args[v->param], out0))
      p->rv = b->pre[i]->var;
  }
  if (p->rv < 0 && !shares_load(&c, a->loop.term, b->loop.term, 0))
    return "not two block reductions over the same data";
  *quiet = 0;
  if (strcmp(st0->grid, st1->grid) || strcmp(st0->stream ? st0->stream : "", st1->stream ? st1->stream : ""))
    return "they are launched with other grids or streams";
  if (!st0->grid_y || st0->grid_y->kind != XE_INT || st0->grid_y->ival != 1)
    return "their grid is not one-dimensional";
  const kvar *acc0 = &a->k->vars[a->loop.acc], *acc1 = &b->k->vars[b->loop.acc];
  if (acc0->type != KT_F32 || acc1->type != KT_F32 || a->k->params[a->out].type != KT_F32 ||
      b->k->params[b->out].type != KT_F32)
    return "they do not reduce float values into float buffers";
  if (!kx_same(&c, a->loop.loop->hi, b->loop.loop->hi))
    return "their rows are not shown to have the same length";
  if (p->rv >= 0) {
    const char *why = check_chain(m, &c, p);
    if (why)
      return why;
  } else {
    p->kind = STATS_SIBLINGS;
  }
  /* the buffers: the second may read the first's output only as rv */
  if (out0->ref == KREF_UNKNOWN || out1->ref == KREF_UNKNOWN || karg_same(out0, out1))
    return "their outputs are not two buffers kfuse can tell apart";
  for (int s = 0; s < 2; s++) {
    const block_red *r = &p->r[s];
    for (int q = 0; q < r->k->nparams; q++) {
      const karg *g = &r->st->args[q];
      if (!r->k->params[q].is_pointer || !r->k->params[q].reads)
        continue;
      if (karg_same(g, out1) || (karg_same(g, out0) && (s == 0 || p->rv < 0)) || g->ref == KREF_UNKNOWN)
        return arena_printf(m->arena, "'%s' may be one of the outputs", g->text);
    }
  }
  return NULL;
}

/* ---- sites ---- */

static const int block_values[] = {1024, 512};
static const pass_param params[] = {{"block", block_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ps->entry];
  stats_pair *p = ctx;
  int quiet;
  if (ps->i + 1 >= e->nsteps)
    return 0;
  const kstep *s0 = &e->steps[ps->i], *s1 = &e->steps[ps->i + 1];
  if (!pass_untouched_launch(v, ps->entry, s0) || !pass_untouched_launch(v, ps->entry, s1))
    return 0;
  const char *why = check_pair(m, s0, s1, p, &quiet);
  if (why) {
    ps->line = s1->loc.line;
    ps->col = s1->loc.col;
    if (ps->remarks && !quiet)
      ps->why = arena_printf(m->arena, "'%s' and '%s': %s", p->r[0].k->name, p->r[1].k->name, why);
    return 0;
  }
  ps->first = s0;
  ps->last = s1;
  ps->span = 2;
  ps->what = arena_printf(m->arena, "%s and %s (lines %u, %u), %s", p->r[0].k->name, p->r[1].k->name,
                          p->r[0].k->loc.line, p->r[1].k->loc.line,
                          p->kind == STATS_SOFTMAX   ? "max and sum of exp"
                          : p->kind == STATS_MOMENTS ? "mean and variance"
                                                     : "two reductions of the same rows");
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  stats_pair p = {0};
  return pass_each_step(v, "fuse-row-stats", "not fused", step, &p, sites, nsites, remarks, d);
}

/* ---- the kernel ---- */

/* The fused kernel's parameters: the first kernel's, then those of the second that pass
 * other arguments (renamed where a name is taken); the second's locals, renamed likewise. */
typedef struct fused {
  const stats_pair *p;
  const char *name[MAX_PARAMS], *type[MAX_PARAMS], *arg[MAX_PARAMS];
  int n;
  const char **pname2;          /* the second kernel's parameter -> its name here */
  const char **vname2;          /* the second kernel's local -> its name here */
} fused;

static int taken(const fused *f, const char *s) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->name[i], s))
      return 1;
  const kkernel *k = f->p->r[0].k;
  for (int i = 0; i < k->nvars; i++)
    if (!strcmp(k->vars[i].name, s))
      return 1;
  return !strncmp(s, "kf_", 3);
}

static const char *fresh(arena *a, const fused *f, const char *base) {
  const char *s = base;
  for (int n = 2; taken(f, s); n++)
    s = arena_printf(a, "%s_%d", base, n);
  return s;
}

static int build_params(arena *a, fused *f) {
  const block_red *r0 = &f->p->r[0], *r1 = &f->p->r[1];
  for (int i = 0; i < r0->k->nparams; i++) {
    if (f->n >= MAX_PARAMS)
      return 0;
    f->name[f->n] = r0->k->params[i].name;
    f->type[f->n] = r0->k->params[i].type_spelling;
    f->arg[f->n++] = r0->st->args[i].text;
  }
  f->pname2 = arena_alloc(a, sizeof(char *) * (size_t)(r1->k->nparams + 1));
  for (int i = 0; i < r1->k->nparams; i++) {
    int at = -1;
    for (int q = 0; q < r0->k->nparams && at < 0; q++)
      if (r0->k->params[q].is_pointer == r1->k->params[i].is_pointer &&
          karg_same(&r0->st->args[q], &r1->st->args[i]))
        at = q;
    if (at >= 0) {
      f->pname2[i] = r0->k->params[at].name;
      continue;
    }
    if (f->n >= MAX_PARAMS)
      return 0;
    f->pname2[i] = f->name[f->n] = fresh(a, f, r1->k->params[i].name);
    f->type[f->n] = r1->k->params[i].type_spelling;
    f->arg[f->n++] = r1->st->args[i].text;
  }
  f->vname2 = arena_alloc(a, sizeof(char *) * (size_t)(r1->k->nvars + 1));
  for (int i = 0; i < r1->k->nvars; i++)
    f->vname2[i] = fresh(a, f, r1->k->vars[i].name);
  return 1;
}

/* Printing one of the two kernels' expressions in the fused kernel. */
typedef struct pctx {
  const fused *f;
  int side;                     /* 0: the first kernel, 1: the second */
  const char *total;            /* what the kernel's smem[0] becomes */
  const char *rv;               /* the second's rv becomes */
  print_hooks hooks;
} pctx;

static int ehook(void *ctx, const kexpr *e, strbuf *b) {
  pctx *p = ctx;
  const block_red *r = &p->f->p->r[p->side];
  if (e->kind == KE_LOAD && e->param < 0 && e->var == r->smem) {
    sb_puts(b, p->total);
    return 1;
  }
  if (!p->side)
    return 0;
  switch (e->kind) {
  case KE_VAR: sb_puts(b, e->var == p->f->p->rv ? p->rv : p->f->vname2[e->var]); return 1;
  case KE_PARAM: sb_puts(b, p->f->pname2[e->param]); return 1;
  case KE_LOAD:
  case KE_ADDR:
    if (e->kind == KE_ADDR)
      sb_putc(b, '&');
    sb_puts(b, e->var >= 0 ? p->f->vname2[e->var] : p->f->pname2[e->param]);
    sb_putc(b, '[');
    print_expr_with(r->k, &p->hooks, e->a, b);
    sb_putc(b, ']');
    return 1;
  default: return 0;
  }
}

static void pexpr(pctx *p, const kexpr *e, strbuf *b) { print_expr_with(p->f->p->r[p->side].k, &p->hooks, e, b); }

static const char *decl_name(const pctx *p, int var) {
  return p->side ? p->f->vname2[var] : p->f->p->r[0].k->vars[var].name;
}

static void print_decl(pctx *p, const kstmt *d, const char *pad, strbuf *b) {
  const kvar *v = &p->f->p->r[p->side].k->vars[d->var];
  size_t n = strlen(v->type_spelling);
  sb_printf(b, "%s%s%s%s = ", pad, v->type_spelling, n && v->type_spelling[n - 1] == '*' ? "" : " ",
            decl_name(p, d->var));
  pexpr(p, d->value, b);
  sb_puts(b, ";\n");
}

/* Prints the declarations before r's loop that the roots need (and those they need), but
 * not `skip`. */
static void print_needed(pctx *p, const kexpr *const *roots, int nroots, int skip, const char *pad, strbuf *b) {
  const block_red *r = &p->f->p->r[p->side];
  char need[RED_MAX_PRE] = {0};
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < r->npre; i++) {
      if (need[i] || r->pre[i]->var == skip)
        continue;
      int used = 0;
      for (int q = 0; q < nroots && !used; q++)
        used = kx_names(roots[q], r->pre[i]->var);
      for (int q = 0; q < r->npre && !used; q++)
        used = need[q] && kx_names(r->pre[q]->value, r->pre[i]->var);
      if (used)
        need[i] = changed = 1;
    }
  }
  for (int i = 0; i < r->npre; i++)
    if (need[i])
      print_decl(p, r->pre[i], pad, b);
}

/* The row for 16-byte loads: the first kernel's term is one float load at base + j. */
static int vector_row(pctx *p, strbuf *b) {
  const block_red *r = &p->f->p->r[0];
  const kexpr *t = r->loop.term;
  int j = r->loop.loop->loop_var;
  if (r->loop.ndecls || t->kind != KE_LOAD || t->param < 0 || r->k->params[t->param].type != KT_F32)
    return 0;
  const kexpr *i = kx_strip(t->a), *base = NULL;
  if (!kx_is_var(i, j)) {
    if (i->kind != KE_BINARY || i->op != KO_ADD)
      return 0;
    base = kx_is_var(i->a, j) ? i->b : kx_is_var(i->b, j) ? i->a : NULL;
    if (!base || kx_names(base, j))
      return 0;
  }
  sb_printf(b, "  const float* kf_row = %s", t->var >= 0 ? r->k->vars[t->var].name : r->k->params[t->param].name);
  if (base) {
    sb_puts(b, " + (");
    pexpr(p, base, b);
    sb_puts(b, ")");
  }
  sb_puts(b, ";\n");
  return 1;
}

/* The update of the thread's state by one element kf_x (`lanes`: the float4 kf_v). */
static void print_softmax_step(const char *mx, const char *E, const char *a, const char *bb, const char *m,
                               const char *s, const char *pad, strbuf *b) {
  if (bb)
    sb_printf(b, "%sconst float kf_mx = %s(%s, %s(%s, %s));\n", pad, mx, m, mx, a, bb);
  else
    sb_printf(b, "%sconst float kf_mx = %s(%s, %s);\n", pad, mx, m, a);
  sb_printf(b, "%sif (kf_mx != -INFINITY) { // otherwise all seen so far are -inf: nothing to add\n", pad);
  sb_printf(b, "%s  %s = %s * %s(%s - kf_mx) + %s(%s - kf_mx)", pad, s, s, E, m, E, a);
  if (bb)
    sb_printf(b, " + %s(%s - kf_mx)", E, bb);
  sb_printf(b, ";\n%s  %s = kf_mx;\n%s}\n", pad, m, pad);
}

/* The warp's states merged into every lane. */
static void print_shuffle(strbuf *t, const char *name, const char *st, const char *const *vars, int n, const char *pad) {
  sb_printf(t, "%sfor (int kf_o = 16; kf_o > 0; kf_o >>= 1)\n%s  %s_merge(%s", pad, pad, name, st);
  for (int i = 0; i < n; i++)
    sb_printf(t, ",\n%s      __shfl_xor_sync(0xffffffffu, %s, kf_o)", pad, vars[i]);
  sb_puts(t, ");\n");
}

static void emit_kernel(const stats_pair *p, fused *f, const char *name, int block, strbuf *t) {
  const block_red *r0 = &p->r[0], *r1 = &p->r[1];
  int soft = p->kind == STATS_SOFTMAX;
  const char *mx = soft ? r0->loop.fn : NULL, *E = p->exp_fn;
  pctx c0 = {f, 0, soft ? "kf_m" : "kf_sum", NULL, {NULL, ehook, NULL}};
  c0.hooks.ctx = &c0;
  sb_printf(t, "// kfuse fuse-row-stats of %s and %s (lines %u, %u): one pass over each row for both:\n", r0->k->name,
            r1->k->name, r0->k->loc.line, r1->k->loc.line);
  if (soft)
    sb_puts(t, "// the max and the sum of exp(x - max), rescaled when the max grows (online softmax).\n");
  else
    sb_puts(t, "// the sum, and the squared deviations from the mean as merged moments (Welford, Chan).\n");
  sb_printf(t, "// %d threads a row, 16-byte loads where the row is aligned; warp shuffles, then one warp.\n", block);
  /* the merge of two threads' states */
  sb_printf(t, "static __device__ __forceinline__ void %s_merge(", name);
  if (soft) {
    sb_puts(t, "float& m, float& s, float m2, float s2) {\n");
    sb_printf(t, "  const float kf_mx = %s(m, m2);\n", mx);
    sb_printf(t, "  if (kf_mx != -INFINITY) {\n    s = s * %s(m - kf_mx) + s2 * %s(m2 - kf_mx);\n    m = kf_mx;\n  }\n}\n",
              E, E);
  } else {
    sb_puts(t, "float& n, float& mean, float& m2, float& sum, float n2, float mean2, float m22,\n"
               "    float sum2) {\n"
               "  if (n2 > 0.0f) {\n"
               "    const float kf_n = n + n2, kf_d = mean2 - mean, kf_w = n2 / kf_n;\n"
               "    mean += kf_d * kf_w;\n"
               "    m2 += m22 + kf_d * kf_d * n * kf_w;\n"
               "    n = kf_n;\n"
               "  }\n"
               "  sum += sum2;\n"
               "}\n");
  }
  sb_printf(t, "__global__ void __launch_bounds__(%d) %s(", block, name);
  for (int i = 0; i < f->n; i++) {
    size_t n = strlen(f->type[i]);
    sb_printf(t, "%s%s%s%s", i ? ", " : "", f->type[i], n && f->type[i][n - 1] == '*' ? "" : " ", f->name[i]);
  }
  sb_puts(t, ") {\n");
  int nstate = soft ? 2 : 4;
  sb_printf(t, "  __shared__ float kf_red[%d][32];\n", nstate);
  const kexpr *roots[3 + RED_MAX_DECLS] = {r0->loop.term, r0->loop.loop->hi, r0->store->index};
  int nroots = 3;
  roots[nroots++] = r0->store->value;
  for (int i = 0; i < r0->loop.ndecls; i++)
    roots[nroots++] = r0->loop.decls[i]->value;
  print_needed(&c0, roots, nroots, -1, "  ", t);
  if (soft) {
    sb_puts(t, "  float kf_m = ");
    pexpr(&c0, r0->init, t);
    sb_puts(t, ", kf_s = 0.0f, kf_m2 = ");
    pexpr(&c0, r0->init, t);
    sb_puts(t, ", kf_s2 = 0.0f;\n");
  } else {
    sb_puts(t, "  float kf_cnt = 0.0f, kf_mean = 0.0f, kf_m2 = 0.0f, kf_sum = 0.0f;\n");
  }
  sb_puts(t, "  const long long kf_n = (long long)(");
  pexpr(&c0, r0->loop.loop->hi, t);
  sb_puts(t, ");\n  long long kf_j = threadIdx.x;\n");
  if (vector_row(&c0, t)) {
    sb_puts(t, "  if (((unsigned long long)kf_row & 15) == 0) {\n");
    sb_printf(t, "#pragma unroll 4\n    for (long long kf_q = threadIdx.x; kf_q < kf_n / 4; kf_q += %d) {\n", block);
    sb_puts(t, "      const float4 kf_v = reinterpret_cast<const float4*>(kf_row)[kf_q];\n");
    if (soft) {
      sb_puts(t, "      {\n");
      print_softmax_step(mx, E, "kf_v.x", "kf_v.y", "kf_m", "kf_s", "        ", t);
      sb_puts(t, "      }\n      {\n");
      print_softmax_step(mx, E, "kf_v.z", "kf_v.w", "kf_m2", "kf_s2", "        ", t);
      sb_puts(t, "      }\n");
    } else {
      sb_puts(t, "      const float kf_c = (kf_v.x + kf_v.y) + (kf_v.z + kf_v.w), kf_cm = kf_c * 0.25f;\n"
                 "      const float kf_dx = kf_v.x - kf_cm, kf_dy = kf_v.y - kf_cm, kf_dz = kf_v.z - kf_cm,\n"
                 "                  kf_dw = kf_v.w - kf_cm;\n");
      sb_printf(t, "      %s_merge(kf_cnt, kf_mean, kf_m2, kf_sum, 4.0f, kf_cm,\n"
                   "          (kf_dx * kf_dx + kf_dy * kf_dy) + (kf_dz * kf_dz + kf_dw * kf_dw), kf_c);\n",
                name);
    }
    sb_puts(t, "    }\n    kf_j = 4 * (kf_n / 4) + threadIdx.x;\n  }\n");
  }
  const kvar *jv = &r0->k->vars[r0->loop.loop->loop_var];
  const char *J = k_unconst(jv->type_spelling);
  sb_printf(t, "  for (; kf_j < kf_n; kf_j += %d) {\n", block);
  sb_printf(t, "    const %s %s = (%s)kf_j;\n", J, jv->name, J);
  for (int i = 0; i < r0->loop.ndecls; i++)
    print_decl(&c0, r0->loop.decls[i], "    ", t);
  sb_puts(t, "    const float kf_x = ");
  pexpr(&c0, r0->loop.term, t);
  sb_puts(t, ";\n");
  if (soft) {
    print_softmax_step(mx, E, "kf_x", NULL, "kf_m", "kf_s", "    ", t);
  } else {
    sb_puts(t, "    kf_cnt += 1.0f;\n"
               "    const float kf_d = kf_x - kf_mean;\n"
               "    kf_mean += kf_d / kf_cnt;\n"
               "    kf_m2 += kf_d * (kf_x - kf_mean);\n"
               "    kf_sum += kf_x;\n");
  }
  sb_puts(t, "  }\n");
  /* the block's combination */
  const char *st = soft ? "kf_m, kf_s" : "kf_cnt, kf_mean, kf_m2, kf_sum";
  const char *vars[4] = {"kf_m", "kf_s", NULL, NULL};
  if (!soft) {
    vars[0] = "kf_cnt";
    vars[1] = "kf_mean";
    vars[2] = "kf_m2";
    vars[3] = "kf_sum";
  }
  if (soft)
    sb_printf(t, "  %s_merge(kf_m, kf_s, kf_m2, kf_s2);\n", name);
  print_shuffle(t, name, st, vars, nstate, "  ");
  sb_puts(t, "  if ((threadIdx.x & 31) == 0) {\n");
  for (int i = 0; i < nstate; i++)
    sb_printf(t, "    kf_red[%d][threadIdx.x >> 5] = %s;\n", i, vars[i]);
  sb_puts(t, "  }\n  __syncthreads();\n  if (threadIdx.x < 32) { // the warps' values, in one warp\n");
  for (int i = 0; i < nstate; i++) {
    if (block == 1024) {
      sb_printf(t, "    %s = kf_red[%d][threadIdx.x];\n", vars[i], i);
      continue;
    }
    sb_printf(t, "    %s = threadIdx.x < %d ? kf_red[%d][threadIdx.x] : ", vars[i], block / 32, i);
    if (soft && i == 0)
      pexpr(&c0, r0->init, t);
    else
      sb_puts(t, "0.0f");
    sb_puts(t, ";\n");
  }
  print_shuffle(t, name, st, vars, nstate, "    ");
  /* thread 0 stores both */
  sb_puts(t, "    if (threadIdx.x == 0) {\n");
  pctx c1 = {f, 1, soft ? "kf_s" : "kf_q", soft ? "kf_m" : "kf_r1", {NULL, ehook, NULL}};
  c1.hooks.ctx = &c1;
  const char *out0 = r0->k->params[r0->out].name;
  if (!soft) {
    sb_puts(t, "      const float kf_r1 = ");
    pexpr(&c0, r0->store->value, t);
    sb_printf(t, ";\n      %s[", out0);
    pexpr(&c0, r0->store->index, t);
    sb_puts(t, "] = kf_r1;\n");
    sb_puts(t, "      const float kf_q = kf_m2 + kf_cnt * (kf_mean - kf_r1) * (kf_mean - kf_r1);\n");
  } else {
    sb_printf(t, "      %s[", out0);
    pexpr(&c0, r0->store->index, t);
    sb_puts(t, "] = kf_m;\n");
  }
  const kexpr *roots1[2] = {r1->store->index, r1->store->value};
  print_needed(&c1, roots1, 2, p->rv, "      ", t);
  sb_printf(t, "      %s[", f->pname2[r1->out]);
  pexpr(&c1, r1->store->index, t);
  sb_puts(t, "] = ");
  pexpr(&c1, r1->store->value, t);
  sb_puts(t, ";\n    }\n  }\n}\n");
}

/* acc = op(acc, x) for reduction r, printed */
static void print_combine(const block_red *r, const char *acc, const char *x, strbuf *t) {
  if (r->loop.fn)
    sb_printf(t, "%s = %s(%s, %s);\n", acc, r->loop.fn, acc, x);
  else
    sb_printf(t, "%s += %s;\n", acc, x);
}

/* Two independent block reductions of the same rows in one loop: each element's terms
 * computed side by side, so that what they both load is loaded once. */
static void emit_siblings(const stats_pair *p, fused *f, const char *name, int block, strbuf *t) {
  const block_red *r[2] = {&p->r[0], &p->r[1]};
  const char *acc[2] = {"kf_a0", "kf_a1"};
  pctx c[2] = {{f, 0, acc[0], NULL, {NULL, ehook, NULL}}, {f, 1, acc[1], NULL, {NULL, ehook, NULL}}};
  c[0].hooks.ctx = &c[0];
  c[1].hooks.ctx = &c[1];
  sb_printf(t, "// kfuse fuse-row-stats of %s and %s (lines %u, %u): both reductions of each row in one\n"
               "// pass, so that what both read is read once. %d threads a row; warp shuffles, then one warp.\n",
            r[0]->k->name, r[1]->k->name, r[0]->k->loc.line, r[1]->k->loc.line, block);
  sb_printf(t, "__global__ void __launch_bounds__(%d) %s(", block, name);
  for (int i = 0; i < f->n; i++) {
    size_t n = strlen(f->type[i]);
    sb_printf(t, "%s%s%s%s", i ? ", " : "", f->type[i], n && f->type[i][n - 1] == '*' ? "" : " ", f->name[i]);
  }
  sb_puts(t, ") {\n  __shared__ float kf_red[2][32];\n");
  for (int s = 0; s < 2; s++) {
    const kexpr *roots[4 + RED_MAX_DECLS] = {r[s]->loop.term, r[s]->loop.loop->hi, r[s]->store->index,
                                              r[s]->store->value};
    int nroots = 4;
    for (int i = 0; i < r[s]->loop.ndecls; i++)
      roots[nroots++] = r[s]->loop.decls[i]->value;
    print_needed(&c[s], roots, nroots, -1, "  ", t);
  }
  for (int s = 0; s < 2; s++) {
    sb_printf(t, "  float %s = ", acc[s]);
    pexpr(&c[s], r[s]->init, t);
    sb_puts(t, ";\n");
  }
  sb_puts(t, "  const long long kf_n = (long long)(");
  pexpr(&c[0], r[0]->loop.loop->hi, t);
  sb_printf(t, ");\n#pragma unroll 4\n  for (long long kf_j = threadIdx.x; kf_j < kf_n; kf_j += %d) {\n", block);
  for (int s = 0; s < 2; s++) {
    const kvar *jv = &r[s]->k->vars[r[s]->loop.loop->loop_var];
    const char *J = k_unconst(jv->type_spelling);
    sb_printf(t, "    const %s %s = (%s)kf_j;\n", J, decl_name(&c[s], r[s]->loop.loop->loop_var), J);
  }
  for (int s = 0; s < 2; s++) {
    for (int i = 0; i < r[s]->loop.ndecls; i++)
      print_decl(&c[s], r[s]->loop.decls[i], "    ", t);
  }
  for (int s = 0; s < 2; s++) {
    strbuf x = {0};
    pexpr(&c[s], r[s]->loop.term, &x);
    sb_puts(t, "    ");
    print_combine(r[s], acc[s], x.s, t);
    sb_free(&x);
  }
  sb_puts(t, "  }\n");
  for (int depth = 0; depth < 2; depth++) {
    const char *pad = depth ? "    " : "  ";
    sb_printf(t, "%sfor (int kf_o = 16; kf_o > 0; kf_o >>= 1) {\n", pad);
    for (int s = 0; s < 2; s++) {
      char x[64];
      snprintf(x, sizeof x, "__shfl_xor_sync(0xffffffffu, %s, kf_o)", acc[s]);
      sb_printf(t, "%s  ", pad);
      print_combine(r[s], acc[s], x, t);
    }
    sb_printf(t, "%s}\n", pad);
    if (depth)
      break;
    sb_puts(t, "  if ((threadIdx.x & 31) == 0) {\n");
    for (int s = 0; s < 2; s++)
      sb_printf(t, "    kf_red[%d][threadIdx.x >> 5] = %s;\n", s, acc[s]);
    sb_puts(t, "  }\n  __syncthreads();\n  if (threadIdx.x < 32) { // the warps' values, in one warp\n");
    for (int s = 0; s < 2; s++) {
      if (block == 1024) {
        sb_printf(t, "    %s = kf_red[%d][threadIdx.x];\n", acc[s], s);
        continue;
      }
      sb_printf(t, "    %s = threadIdx.x < %d ? kf_red[%d][threadIdx.x] : ", acc[s], block / 32, s);
      pexpr(&c[s], r[s]->init, t);
      sb_puts(t, ";\n");
    }
  }
  sb_puts(t, "    if (threadIdx.x == 0) {\n");
  for (int s = 0; s < 2; s++) {
    const char *out = s ? f->pname2[r[s]->out] : r[s]->k->params[r[s]->out].name;
    sb_printf(t, "      %s[", out);
    pexpr(&c[s], r[s]->store->index, t);
    sb_puts(t, "] = ");
    pexpr(&c[s], r[s]->store->value, t);
    sb_puts(t, ";\n");
  }
  sb_puts(t, "    }\n  }\n}\n");
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  /* the pair still as it was found: two untouched launches, side by side */
  const kstep *s0 = pass_site_launch(v, site, site->first_step);
  const kstep *s1 = pass_site_launch(v, site, site->last_step);
  stats_pair p = {0};
  fused f = {.p = &p};
  int quiet;
  if (!s0 || !s1 || s1 != s0 + 1 || check_pair(m, s0, s1, &p, &quiet) || !build_params(v->a, &f))
    return pass_site_gone(v, "fuse-row-stats", site, d);
  int block = values ? values[0] : block_values[0];
  strbuf base = {0};
  for (int s = 0; s < 2; s++) {
    const char *n = p.r[s].k->name;
    size_t len = strlen(n);
    if (len > 7 && !strcmp(n + len - 7, "_kernel"))
      len -= 7;
    sb_printf(&base, "%s%.*s", s ? "_" : "fused_", (int)len, n);
  }
  const char *name = variant_fresh_name(v, base.s);
  sb_free(&base);
  strbuf t = {0}, x = {0};
  if (p.kind == STATS_SIBLINGS)
    emit_siblings(&p, &f, name, block, &t);
  else
    emit_kernel(&p, &f, name, block, &t);
  sb_printf(&x, "%s<<<%s, %d, 0, %s>>>(", name, s0->grid, block, s0->stream ? s0->stream : "0");
  for (int i = 0; i < f.n; i++)
    sb_printf(&x, "%s%s", i ? ", " : "", f.arg[i]);
  sb_puts(&x, ")");
  int ok = variant_replace_step(v, site->entry, s0, x.s) && variant_remove_step(v, site->entry, s1);
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "fuse-row-stats(block=%d)@%s#%d-#%d", block, e->name, site->first_step,
                                 site->last_step),
                 arena_printf(v->a, "fuse-row-stats: %s -> %s (block %d)", site->what, name, block));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "fuse-row-stats: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  return ok;
}

const pass pass_fuse_row_stats = {
    "fuse-row-stats",
    "compute two row statistics (max and sum of exp; mean and variance) in one pass over the row",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
