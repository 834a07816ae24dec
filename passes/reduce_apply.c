/*
 * reduce_apply.c: a statistic over a strided dimension and the broadcast that applies it,
 * in one kernel. RMS norm over the channels of (N, C, H, W), as eager runs it, is five
 * kernels:
 *
 *   P  square:     sq[i] = x[i] * x[i]                             (pointwise, N*C*S)
 *   R  mean_dim1:  one thread per (n, s): acc = sum_c sq[(n*C + c)*S + s];  ms[n*S + s] = acc / C
 *   E  add, sqrt:  rms[j] = sqrtf(ms[j] + eps)                      (pointwise, N*S)
 *   A  div_bcast:  y[e] = x[e] / rms[(e / S / C) * S + e % S]      (pointwise, N*C*S)
 *
 * so x is read twice and the full-size sq is written and read. The pass makes them one
 * kernel with R's threads: each thread loads its column x[(n*C + c)*S + s] over c once,
 * keeping up to 64 values in registers (the loop unrolled, each step guarded by c < C;
 * more channels are loaded again), computes P's value at each for R's sum (in R's order:
 * the statistic is the reference's bit for bit), then E's code on the statistic, then A's
 * code at each element of its column with the statistic in a register. x is read once,
 * y written once; sq, ms and rms are never stored.
 *
 * Legal when (checked on the model; otherwise nothing changes, and a remark says why when
 * R is a thread-per-output reduction followed by its broadcast):
 *   - R is a lifted kernel whose body is, at the top level: declarations, a guard
 *     `if (t >= S) return;` on its linear thread index t (blockIdx.x * blockDim.x +
 *     threadIdx.x), declarations, the accumulator's, one reduction loop (reduce.h) over
 *     c from 0 to hi step 1 whose term is one load T[L], and one plain store out[o] = g(acc);
 *   - P, when T is not an entry input, is the pointwise launch just before R (allocations
 *     and runtime calls aside) that writes T, and only T, from X read at its element;
 *     E is the run of pointwise launches just after R over R's outputs, its last writing F;
 *     A is the next launch, pointwise over X's elements, reading X at its element, F at
 *     another index, and writing only buffers none of the others touch;
 *   - T, R's out, E's buffers and F are scratch allocations of the entry, whole, that no
 *     other step reads; all launches share one stream; the host values they name are not
 *     reassigned;
 *   - the index algebra, over R's thread (the row r = blockIdx.y in [0, rows), t in [0, S)
 *     by the guard, c in [0, hi) by the loop): L = (r * hi + c) * S + t, so that (r, c, t)
 *     are the element's coordinates in a (rows, hi, S) layout, one element each; A's
 *     element count is rows * hi * S; and A's index of F at element L is o, the index R
 *     stores the statistic at (for a two-dimensional A, its row and column are L / n and
 *     L % n of its row length n, which must be S). Integer casts are taken as value-
 *     preserving (the reference's indices do not overflow), sizes as non-negative.
 * Every element of A's output is then written once, by the thread that owns its
 * statistic, with A's code.
 *
 * Parameter: cache (channels kept in registers: 64, 0 for none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pointwise.h"
#include "../lib/print.h"
#include "pass.h"
#include "poly.h"
#include "pwrun.h"
#include "reduce.h"

enum { MAX_TOP = 64 };

/* ---- the site ---- */

typedef struct site {
  const kentry *e;
  int ei;
  /* R */
  const kstep *rst;
  const kkernel *rk;
  red_loop loop;
  const kstmt *store;           /* out[o] = g(acc) */
  const kexpr *tload;           /* the term: T[L] */
  const kstmt *top[MAX_TOP];    /* R's top-level statements */
  int ntop;
  int tvar;                     /* R's linear thread index local */
  /* P, E, A */
  int has_p, has_e;
  prun p, ex;
  pw_launch A;
  const kstep *ast;
  int xbuf_a;                   /* X in A's view: its kernel parameter */
  int fparam_a;                 /* F: A's parameter */
  const char *why;
} site;

/* The top-level launch index of step st in e, or -1. */
static int top_index(const kentry *e, const kstep *st) {
  for (int i = 0; i < e->nsteps; i++)
    if (&e->steps[i] == st)
      return i;
  return -1;
}

/* Whether a step of e other than those in `skip` reads buffer (ref, id). */
static int read_by_others(const kentry *e, const kstep *steps, int n, kref_kind ref, int id, const kstep *const *skip,
                          int nskip) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    int skipped = 0;
    for (int k = 0; k < nskip; k++)
      skipped |= skip[k] == st;
    if (!skipped && st->kind != KS_FREE && st->kind != KS_ALLOC)
      for (int a = 0; a < st->nargs; a++)
        if (st->args[a].ref == ref && st->args[a].buffer == id && (st->args[a].reads || st->args[a].writes))
          return 1;
    if (read_by_others(e, st->body, st->nbody, ref, id, skip, nskip) ||
        read_by_others(e, st->orelse, st->norelse, ref, id, skip, nskip))
      return 1;
  }
  return 0;
}

/* R: a thread-per-output reduction. NULL, or why not. */
static const char *match_r(const kmodel *m, const kstep *st, site *s, int *quiet) {
  *quiet = 1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "no launch";
  const kkernel *k = &m->kernels[st->kernel];
  s->rst = st;
  s->rk = k;
  if (!k->body || k->is_template || st->nargs != k->nparams || k->uses_shared || k->uses_sync || k->uses_atomics ||
      k->uses_warp)
    return "not a plain kernel";
  s->ntop = 0;
  kst_flatten(k->body, s->top, &s->ntop, MAX_TOP);
  if (s->ntop > MAX_TOP)
    return "too many statements";
  int li = -1, guard = -1;
  for (int i = 0; i < s->ntop; i++) {
    const kstmt *t = s->top[i];
    if (t->kind == KST_FOR && li < 0 && red_match_loop(k, t, &s->loop)) {
      li = i;
      continue;
    }
    if (t->kind == KST_IF && guard < 0 && li < 0 && !t->orelse && t->then) {
      const kstmt *u[2];
      int nu = 0;
      kst_flatten(t->then, u, &nu, 2);
      const kexpr *c = kx_strip(t->cond);
      if (nu == 1 && u[0]->kind == KST_RETURN && !u[0]->value && c && c->kind == KE_BINARY && c->op == KO_GE &&
          kx_strip(c->a)->kind == KE_VAR && pw_is_linear(kx_resolve(k, kx_strip(c->a), -1), st->block_threads)) {
        guard = i;
        s->tvar = kx_strip(c->a)->var;
        continue;
      }
    }
    if (t->kind != KST_DECL && !(li >= 0 && i == li + 1 && t->kind == KST_STORE))
      return "has statements other than declarations, a guard, a loop and a store";
  }
  if (li < 0 || guard < 0 || li + 2 != s->ntop)
    return "is no guarded loop followed by one store";
  s->store = s->top[li + 1];
  const kexpr *lo = kx_strip(s->loop.loop->lo), *step = kx_strip(s->loop.loop->stride);
  if (!lo || lo->kind != KE_INT || lo->ival != 0 || !step || step->kind != KE_INT || step->ival != 1)
    return "has a loop that does not count from 0 by 1";
  if (s->loop.ndecls)
    return "declares in its loop";
  const kexpr *t = kx_strip(s->loop.term);
  if (!t || t->kind != KE_LOAD || t->param < 0)
    return "sums no single load";
  s->tload = t;
  if (s->store->param < 0 || s->store->op >= 0 || !kx_names(s->store->value, s->loop.acc))
    return "does not store its accumulator's function once";
  if (k->vars[s->loop.acc].type != KT_F32 || k->params[t->param].type != KT_F32)
    return "reduces no float values";
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes && p != s->store->param)
      return "writes another buffer";
  if (st->args[s->store->param].ref != KREF_SCRATCH || st->args[s->store->param].offset ||
      st->args[t->param].ref == KREF_UNKNOWN || st->args[t->param].offset)
    return "stores its statistic into no whole scratch buffer, or loads from no whole buffer";
  if (!st->grid_y)
    return "has a grid whose rows kfuse does not read";
  return NULL;
}

static const char *check(const variant *v, int ei, int ri, site *s, int *quiet) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  memset(s, 0, sizeof *s);
  s->e = e;
  s->ei = ei;
  const kstep *rst = &e->steps[ri];
  const char *why = match_r(m, rst, s, quiet);
  if (why)
    return why;
  const kkernel *rk = s->rk;
  const karg *targ = &rst->args[s->tload->param], *oarg = &rst->args[s->store->param];
  /* P: the pointwise launch before R that writes T */
  if (targ->ref == KREF_SCRATCH) {
    int pi = ri - 1;
    while (pi >= 0 && e->steps[pi].kind != KS_LAUNCH && prun_transparent(&e->steps[pi]))
      pi--;
    if (pi < 0 || prun_build(v, ei, pi, &s->p) != 1 || s->p.nmem != 1 || s->p.mem[0].is_memset)
      return "its input is computed by no single pointwise launch just before it";
    int tb = prun_find_arg(&s->p, targ);
    int written = 0;
    for (int b = 0; b < s->p.nbufs; b++)
      written += s->p.bufs[b].written;
    if (tb < 0 || !s->p.bufs[tb].written || written != 1)
      return "the launch before it writes other buffers than its input";
    s->has_p = 1;
  } else if (targ->ref != KREF_PARAM) {
    return "loads from no buffer of the entry";
  }
  /* E: pointwise launches over R's outputs; A: the next launch */
  int ai = ri + 1;
  while (ai < e->nsteps && e->steps[ai].kind != KS_LAUNCH && prun_transparent(&e->steps[ai]))
    ai++;
  if (ai >= e->nsteps || variant_touched(v, ei, e->steps[ai].index))
    return "is followed by no launch";
  int span = prun_build(v, ei, ai, &s->ex);
  const karg *farg = oarg;
  int ob = span > 0 ? prun_find_arg(&s->ex, oarg) : -1;
  if (ob >= 0 && s->ex.bufs[ob].read_first && !s->ex.bufs[ob].broadcast) {
    /* the run ends with the launch that writes F; A follows it */
    const prun_member *last = &s->ex.mem[s->ex.nmem - 1];
    int wrote = -1;
    for (int p = 0; p < last->L.k->nparams; p++)
      if (last->L.k->params[p].is_pointer && last->L.k->params[p].writes)
        wrote = wrote < 0 ? p : -2;
    if (wrote < 0)
      return "the pointwise launches after it end in one that writes several buffers";
    farg = &last->st->args[wrote];
    s->has_e = 1;
    ai = top_index(e, last->st) + 1;
    while (ai < e->nsteps && e->steps[ai].kind != KS_LAUNCH && prun_transparent(&e->steps[ai]))
      ai++;
    if (ai >= e->nsteps)
      return "is followed by no launch that applies its statistic";
  }
  s->ast = &e->steps[ai];
  const char *pwhy = NULL;
  if (variant_touched(v, ei, s->ast->index) || !pw_analyze(m, e, s->ast, &s->A, &pwhy))
    return arena_printf(m->arena, "the launch that reads its statistic is not pointwise%s%s", pwhy ? ": " : "",
                        pwhy ? pwhy : "");
  const kkernel *ak = s->A.k;
  /* A: F read at other indices only, X at the element, writes nothing the others touch */
  const karg *xarg = s->has_p ? NULL : targ;
  if (s->has_p)
    for (int b = 0; b < s->p.nbufs && !xarg; b++)
      if (s->p.bufs[b].read_first && s->p.bufs[b].ref != KREF_NONE) {
        for (int a = 0; a < s->p.mem[0].st->nargs; a++)
          if (prun_find_arg(&s->p, &s->p.mem[0].st->args[a]) == b && s->p.mem[0].L.k->params[a].is_pointer)
            xarg = &s->p.mem[0].st->args[a];
      }
  if (!xarg)
    return "its input's producer reads no buffer";
  s->xbuf_a = s->fparam_a = -1;
  for (int p = 0; p < ak->nparams; p++) {
    const karg *g = &s->ast->args[p];
    if (!ak->params[p].is_pointer)
      continue;
    if (karg_same(g, farg))
      s->fparam_a = p;
    else if (karg_same(g, xarg))
      s->xbuf_a = p;
    if (ak->params[p].writes && (karg_same(g, xarg) || karg_same(g, targ) || karg_same(g, oarg) || karg_same(g, farg)))
      return "the launch that applies its statistic writes a buffer the others read";
  }
  if (s->fparam_a < 0 || s->xbuf_a < 0)
    return "the next launch does not read both its statistic and its input";
  *quiet = 0; /* a statistic and its broadcast: worth saying why not */
  int x_at = 0, f_other = 0, f_at = 0;
  for (int a = 0; a < ak->naccesses; a++) {
    const kaccess *ac = &ak->accesses[a];
    if (ac->is_store || ac->param < 0)
      continue;
    if (ac->param == s->xbuf_a)
      x_at |= pw_at_element(&s->A, a);
    if (ac->param == s->fparam_a) {
      if (pw_at_element(&s->A, a))
        f_at = 1;
      else
        f_other++;
    }
  }
  if (!x_at || f_at || f_other < 1)
    return "the next launch does not read its input at its element and its statistic at another index";
  /* the scratch buffers go: nobody else reads them */
  const kstep *skip[PRUN_MAX_MEMBERS + 4];
  int nskip = 0;
  skip[nskip++] = rst;
  skip[nskip++] = s->ast;
  if (s->has_p)
    skip[nskip++] = s->p.mem[0].st;
  for (int i = 0; s->has_e && i < s->ex.nmem; i++)
    skip[nskip++] = s->ex.mem[i].st;
  if (s->has_p && read_by_others(e, e->steps, e->nsteps, targ->ref, targ->buffer, skip, nskip))
    return "another step reads its input's intermediate";
  if (read_by_others(e, e->steps, e->nsteps, oarg->ref, oarg->buffer, skip, nskip) ||
      read_by_others(e, e->steps, e->nsteps, farg->ref, farg->buffer, skip, nskip) || farg->ref != KREF_SCRATCH)
    return "another step reads its statistic, or it is no scratch buffer";
  for (int b = 0; s->has_e && b < s->ex.nbufs; b++)
    if (s->ex.bufs[b].written &&
        (s->ex.bufs[b].ref != KREF_SCRATCH ||
         read_by_others(e, e->steps, e->nsteps, s->ex.bufs[b].ref, s->ex.bufs[b].id, skip, nskip)))
      return "the launches after it write buffers others read";
  const char *stream = rst->stream ? rst->stream : "0";
  if (strcmp(s->ast->stream ? s->ast->stream : "0", stream) ||
      (s->has_p && strcmp(s->p.stream, stream)) || (s->has_e && strcmp(s->ex.stream, stream)))
    return "its launches are on several streams";
  for (int a = 0; a < rst->nargs; a++)
    if (prun_names_assigned(e, rst->args[a].text))
      return "it is passed a host variable the entry reassigns";
  /* the index algebra */
  atoms A = {{0}, {0}, 0};
  pctx c = {.A = &A, .m = m, .e = e, .k = rk, .st = rst};
  poly rows, S, hi, t, r, cv, L, o;
  xpoly(&c, rst->grid_y, &rows);
  const kstmt *g = NULL;
  for (int i = 0; i < s->ntop; i++)
    if (s->top[i]->kind == KST_IF)
      g = s->top[i];
  kpoly(&c, kx_strip(g->cond)->b, &S);
  kpoly(&c, s->loop.loop->hi, &hi);
  p_atom(&t, atom_id(&A, "t"));
  p_atom(&r, atom_id(&A, "r"));
  p_atom(&cv, atom_id(&A, "c"));
  A.ub[atom_id(&A, "t")] = &S;
  A.ub[atom_id(&A, "r")] = &rows;
  A.ub[atom_id(&A, "c")] = &hi;
  c.linear = &t;
  c.bid_y = &r;
  c.var_atom[0] = s->loop.loop->loop_var;
  c.var_poly[0] = &cv;
  c.var_atom[1] = s->tvar;
  c.var_poly[1] = &t;
  c.nvar = 2;
  kpoly(&c, rk->accesses[s->tload->access].flat_index, &L);
  kpoly(&c, rk->accesses[s->store->access].flat_index, &o);
  if (rows.bad || S.bad || hi.bad || L.bad || o.bad)
    return "its indices are not polynomials of its row, thread and loop variable kfuse can read";
  poly want, rh, tmp;
  p_mul(&rh, &r, &hi);
  p_add(&tmp, &rh, &cv, 1);
  p_mul(&want, &tmp, &S);
  p_add(&want, &want, &t, 1);
  if (!p_equal(&L, &want))
    return "it does not load (row * n + c) * S + t, the middle dimension of a (rows, n, S) layout";
  /* A at element L */
  pctx ca = {.A = &A, .m = m, .e = e, .k = ak, .st = s->ast};
  poly dom, count, Q, Rm, B;
  xpoly(&ca, s->A.domain, &dom);
  p_mul(&count, &rows, &hi);
  p_mul(&count, &count, &S);
  if (!p_equal(&dom, &count))
    return "the launch that applies its statistic covers another element count than rows * n * S";
  if (s->A.row >= 0) {
    poly n;
    kpoly(&ca, s->A.bound, &n);
    if (!p_equal(&n, &S))
      return "the launch that applies its statistic has rows of another length than S";
    if (!p_divmod(&A, &L, &S, &Q, &Rm))
      return "kfuse cannot split the element into the apply's row and column";
    ca.bid_y = &Q;
    ca.var_atom[0] = s->A.row;
    ca.var_poly[0] = &Q;
    ca.var_atom[1] = s->A.elem;
    ca.var_poly[1] = &Rm;
    ca.nvar = 2;
    ca.linear = &Rm;
  } else {
    ca.var_atom[0] = s->A.elem;
    ca.var_poly[0] = &L;
    ca.nvar = 1;
    ca.linear = &L;
  }
  for (int a = 0; a < ak->naccesses; a++) {
    const kaccess *ac = &ak->accesses[a];
    if (ac->is_store || ac->param != s->fparam_a)
      continue;
    kpoly(&ca, ac->flat_index, &B);
    if (!p_equal(&B, &o))
      return "the launch that applies its statistic reads it at another index than the thread stores it at";
  }
  return NULL;
}

static const int cache_values[] = {64, 0};
static const pass_param params[] = {{"cache", cache_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kmodel *m = v->m;
  const kstep *st = pass_step_launch(v, ps);
  site *s = ctx;
  int quiet;
  if (!st)
    return 0;
  const char *why = check(v, ps->entry, ps->i, s, &quiet);
  if (why) {
    if (ps->remarks && !quiet)
      ps->why = arena_printf(m->arena, "'%s' %s", s->rk ? s->rk->name : "?", why);
    return 0;
  }
  ps->first = s->has_p ? s->p.mem[0].st : s->rst;
  ps->last = s->ast;
  ps->what = arena_printf(m->arena, "%s (line %u) and %s (line %u)", s->rk->name, s->rk->loc.line, s->A.k->name,
                          s->A.k->loc.line);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  site s = {0};
  return pass_each_step(v, "reduce-apply", "not fused", step, &s, sites, nsites, remarks, d);
}

/* ---- the kernel ---- */

/* Whether statement t (a declaration of R) declares a pointer into T or out. */
static int points_into(const site *s, const kstmt *t) {
  int tp = s->tload->param, op = s->store->param;
  return t->kind == KST_DECL && t->value && (prun_names_param(t->value, tp, -1) || prun_names_param(t->value, op, -1));
}

/* Removes the allocation and the free of scratch buffer id (and its declarator). */
static int remove_scratch(variant *v, int ei, const kentry *e, int id) {
  int ok = 1;
  for (int i = 0; i < e->nsteps && ok; i++) {
    const kstep *st = &e->steps[i];
    if (st->kind == KS_ALLOC && st->index == id) {
      ok = variant_remove_step(v, ei, st);
      if (ok && st->var_decl)
        variant_remove_decl(v, st->var_decl);
    } else if (st->kind == KS_FREE && st->nargs >= 1 && st->args[0].ref == KREF_SCRATCH && st->args[0].buffer == id) {
      ok = variant_remove_step(v, ei, st);
    }
  }
  return ok;
}

/* Prints the element of x at index `index` (C text), in braces at depth, with `before`
 * and `after` (whole lines, may be NULL) inside them; `after` may name the value var of
 * buffer `want` as %s. */
static void element(prun_emit *x, const char *index, int want, const char *after, int depth, strbuf *b) {
  int mark = prun_scope(x);
  strbuf body = {0};
  x->b = &body;
  prun_print_element(x, depth + 1);
  prun_print_stores(x, depth + 1);
  if (after) {
    print_indent(&body, depth + 1);
    sb_printf(&body, after, want >= 0 && x->value[want] >= 0 ? x->fk.vars[x->value[want]].name : "0.0f");
    sb_puts(&body, "\n");
  }
  const char *iv = x->fk.vars[x->iv].name;
  if (prun_uses_token(body.s ? body.s : "", iv)) {
    print_indent(b, depth + 1);
    sb_printf(b, "const %s %s = %s;\n", x->fk.vars[x->iv].type_spelling, iv, index);
  }
  sb_puts(b, body.s ? body.s : "");
  sb_free(&body);
  prun_unscope(x, mark);
}

/* A loop over the column with `body` (lines at depth 0, re-indented): unrolled over the
 * cache with a guard, or plain; the loop variable declared where the body names it. */
static void loop(strbuf *b, int cache, const char *hi, const char *J, const char *c, int depth, const char *body) {
  int inner = depth + (cache ? 2 : 1);
  if (cache) {
    sb_printf(b, "#pragma unroll\n");
    print_indent(b, depth);
    sb_printf(b, "for (int kf_c = 0; kf_c < %d; kf_c++) {\n", cache);
    print_indent(b, depth + 1);
    sb_printf(b, "if (kf_c < (%s)) {\n", hi);
    if (prun_uses_token(body, c)) {
      print_indent(b, inner);
      sb_printf(b, "const %s %s = (%s)kf_c;\n", J, c, J);
    }
  } else {
    print_indent(b, depth);
    sb_printf(b, "for (%s %s = 0; %s < %s; %s += 1) {\n", J, c, c, hi, c);
  }
  for (const char *p = body; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (n) {
      print_indent(b, inner);
      sb_putn(b, p, n);
    }
    sb_putc(b, '\n');
    p += n + (nl != NULL);
  }
  if (cache) {
    print_indent(b, depth + 1);
    sb_puts(b, "}\n");
  }
  print_indent(b, depth);
  sb_puts(b, "}\n");
}

static int apply(variant *v, const pass_site *site_, const int *values, diag *d) {
  const kmodel *m = v->m;
  const int ei = site_->entry;
  const kentry *e = &m->entries[ei];
  static site s;
  int ri = -1, quiet;
  for (int i = 0; i < e->nsteps && ri < 0; i++)
    if (pass_untouched_launch(v, ei, &e->steps[i]) &&
        !check(v, ei, i, &s, &quiet) && s.ast->index == site_->last_step)
      ri = i;
  if (ri < 0 || check(v, ei, ri, &s, &quiet))
    return pass_site_gone(v, "reduce-apply", site_, d);
  int cache = values ? values[0] : cache_values[0];
  const kkernel *rk = s.rk;
  const kstep *rst = s.rst;
  arena *a = m->arena;
  const karg *targ = &rst->args[s.tload->param], *oarg = &rst->args[s.store->param];
  /* the element printers, each on the names of the one before: P's on R, E's, then A's */
  static prun_emit xp, xe, xa;
  static prun ra;
  const kkernel *base = rk;
  const kstep *base_launch = rst;
  int pt = -1, px = -1, eo = -1, ef = -1;
  if (s.has_p) {
    pt = prun_find_arg(&s.p, targ);
    s.p.bufs[pt].removed = 1;
    s.p.bufs[pt].store = 0;
    for (int b = 0; b < s.p.nbufs; b++)
      if (s.p.bufs[b].read_first)
        px = b;
    prun_emit_init(&xp, &s.p, base, base_launch);
    base = &xp.fk; /* R's parameters first, so R's launch still names them */
  }
  if (s.has_e) {
    eo = prun_find_arg(&s.ex, oarg);
    s.ex.bufs[eo].removed = 1;
    for (int b = 0; b < s.ex.nbufs; b++)
      if (s.ex.bufs[b].written) {
        s.ex.bufs[b].removed = 1;
        s.ex.bufs[b].store = 0;
      }
    const prun_member *last = &s.ex.mem[s.ex.nmem - 1];
    for (int p = 0; p < last->L.k->nparams; p++)
      if (last->L.k->params[p].is_pointer && last->L.k->params[p].writes)
        ef = prun_find_arg(&s.ex, &last->st->args[p]);
    prun_emit_init(&xe, &s.ex, base, base_launch);
    base = &xe.fk;
  }
  if (prun_build(v, ei, top_index(e, s.ast), &ra) < 1 || ra.mem[0].st != s.ast) {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "reduce-apply: the apply at %s is no run; the variant is dropped",
                site_->what);
    return 0;
  }
  ra.nmem = ra.nlaunch = 1; /* A alone */
  int af = prun_find_arg(&ra, &s.ast->args[s.fparam_a]), ax = prun_find_arg(&ra, &s.ast->args[s.xbuf_a]);
  ra.bufs[af].removed = 1;
  /* X comes to A's code from the column: its parameter goes unless A reads it elsewhere */
  int x_elsewhere = 0;
  for (int i = 0; i < s.A.k->naccesses; i++)
    x_elsewhere |= !s.A.k->accesses[i].is_store && s.A.k->accesses[i].param == s.xbuf_a && !pw_at_element(&s.A, i);
  if (!x_elsewhere)
    ra.bufs[ax].removed = 1;
  prun_emit_init(&xa, &ra, base, base_launch);
  /* the registers the printers read */
  int pv = -1, er = -1, av = -1, as = -1;
  int *ppre = NULL, *epre = NULL, *apre = NULL, *abv = NULL;
  if (s.has_p) {
    pv = prun_new_var(&xp, "kf_x", "float");
    ppre = arena_alloc(a, sizeof(int) * (size_t)(s.p.nbufs + 1));
    for (int b = 0; b < s.p.nbufs; b++)
      ppre[b] = b == px ? pv : -1;
    xp.preset = ppre;
  }
  if (s.has_e) {
    er = prun_new_var(&xe, "kf_r", "float");
    epre = arena_alloc(a, sizeof(int) * (size_t)(s.ex.nbufs + 1));
    for (int b = 0; b < s.ex.nbufs; b++)
      epre[b] = b == eo ? er : -1;
    xe.preset = epre;
  }
  av = prun_new_var(&xa, "kf_x", "float");
  as = prun_new_var(&xa, "kf_stat", "float");
  apre = arena_alloc(a, sizeof(int) * (size_t)(ra.nbufs + 1));
  abv = arena_alloc(a, sizeof(int) * (size_t)(ra.nbufs + 1));
  for (int b = 0; b < ra.nbufs; b++) {
    apre[b] = b == ax ? av : -1;
    abv[b] = b == af ? as : -1;
  }
  xa.preset = apre;
  xa.bvalue = abv;
  const char *xv_p = s.has_p ? xp.fk.vars[pv].name : NULL, *xv_a = xa.fk.vars[av].name,
             *stat_a = xa.fk.vars[as].name, *r_e = s.has_e ? xe.fk.vars[er].name : NULL;
  /* X: loaded through R's T parameter, or P's input */
  const char *xname = s.has_p ? xp.fk.params[s.p.bufs[px].param].name : rk->params[s.tload->param].name;
  const char *name = variant_fresh_name(v, arena_printf(a, "fused_%s_%s", rk->name, s.A.k->name));
  const char *acc = rk->vars[s.loop.acc].name;
  const kvar *cv = &rk->vars[s.loop.loop->loop_var];
  const char *J = k_unconst(cv->type_spelling);
  strbuf t = {0}, args = {0}, L = {0}, o = {0}, hi = {0};
  print_expr(rk, rk->accesses[s.tload->access].flat_index, &L);
  print_expr(rk, rk->accesses[s.store->access].flat_index, &o);
  print_expr(rk, s.loop.loop->hi, &hi);
  /* the head */
  sb_printf(&t, "// kfuse reduce-apply of %s (line %u), a statistic per thread over a middle dimension, and\n",
            rk->name, rk->loc.line);
  sb_printf(&t, "// %s (line %u), which applies it, in one kernel", s.A.k->name, s.A.k->loc.line);
  if (s.has_p || s.has_e)
    sb_printf(&t, "; %s%s%s computed where read", s.has_p ? prun_names(&s.p, a) : "", s.has_p && s.has_e ? ", " : "",
              s.has_e ? prun_names(&s.ex, a) : "");
  sb_printf(&t, ":\n// each thread reads its column once%s, and writes it applied;\n",
            cache ? arena_printf(a, " (up to %d values kept in registers, more read again)", cache) : "");
  sb_puts(&t, "// the statistic and the intermediates are never stored.\n");
  /* the cache is 64 registers a thread: without a bound the compiler took 81, which left
   * two 256-thread blocks an SM (6.7 ms on 036 where the same code bounded to 80 took 4.25) */
  if (cache && rst->block_threads > 0 && rst->block_threads <= 768)
    sb_printf(&t, "__global__ void __launch_bounds__(%lld, %lld) %s(", rst->block_threads, 768 / rst->block_threads,
              name);
  else
    sb_printf(&t, "__global__ void %s(", name);
  int np = 0;
  for (int p = 0; p < rk->nparams; p++) {
    if ((p == s.tload->param && s.has_p) || p == s.store->param)
      continue;
    size_t n = strlen(rk->params[p].type_spelling);
    sb_printf(&t, "%s%s%s%s", np ? ", " : "", rk->params[p].type_spelling,
              n && rk->params[p].type_spelling[n - 1] == '*' ? "" : " ", rk->params[p].name);
    sb_printf(&args, "%s%s", np++ ? ", " : "", rst->args[p].text);
  }
  prun_emit *chain[3] = {NULL, NULL, NULL};
  prun *runs[3];
  int nchain = 0;
  if (s.has_p) {
    chain[nchain] = &xp;
    runs[nchain++] = &s.p;
  }
  if (s.has_e) {
    chain[nchain] = &xe;
    runs[nchain++] = &s.ex;
  }
  chain[nchain] = &xa;
  runs[nchain++] = &ra;
  for (int ci = 0; ci < nchain; ci++) {
    prun_emit *x = chain[ci];
    prun *r = runs[ci];
    for (int b = 0; b < r->nbufs; b++) {
      const prun_buf *bf = &r->bufs[b];
      if (bf->param < 0 || bf->removed)
        continue;
      sb_printf(&t, "%s%s%s* __restrict__ %s", np ? ", " : "", bf->store ? "" : "const ", bf->type,
                x->fk.params[bf->param].name);
      sb_printf(&args, "%s%s", np++ ? ", " : "", bf->name);
    }
    for (int sc = 0; sc < r->nscalars; sc++) {
      if (r->scalars[sc].shared)
        continue;
      const kkparam *p = &x->fk.params[r->scalars[sc].param];
      sb_printf(&t, "%s%s %s", np ? ", " : "", p->type_spelling, p->name);
      sb_printf(&args, "%s%s", np++ ? ", " : "", r->scalars[sc].text);
    }
  }
  sb_puts(&t, ") {\n");
  /* R's statements before its loop (not the pointers into T or out) */
  print_hooks none = {NULL, NULL, NULL};
  char need[MAX_TOP] = {0};
  for (int changed = 1; changed;) { /* the declarations the guard, the loop's bound, the
                                     * statistic or a needed declaration name */
    changed = 0;
    for (int i = 0; i < s.ntop - 2; i++) {
      const kstmt *st = s.top[i];
      if (need[i] || points_into(&s, st))
        continue;
      int used = st->kind != KST_DECL || st->var == s.loop.acc;
      used = used || kx_names(s.loop.loop->hi, st->var) || kx_names(s.store->value, st->var);
      for (int q = 0; q < s.ntop - 2 && !used; q++)
        used = q != i && (need[q] || s.top[q]->kind != KST_DECL) &&
               (kx_names(s.top[q]->value, st->var) || kx_names(s.top[q]->cond, st->var));
      if (used)
        need[i] = changed = 1;
    }
  }
  for (int i = 0; i < s.ntop - 2; i++)
    if (need[i])
      print_stmt_with(rk, &none, s.top[i], 1, &t);
  /* the column: x loaded, P's value summed in R's order */
  /* the reduction's update with the term as %s */
  const char *tsum = s.loop.fn ? arena_printf(a, "%s = %s(%s, %%s);", acc, s.loop.fn, acc) : arena_printf(a, "%s += %%s;", acc);
  /* with a cache: the column loaded into registers, then summed, then applied; then
   * (or without one) the same reading the column from memory each time */
  const char *xv = s.has_p ? xv_p : "kf_x";
  for (int cached = cache > 0; cached >= 0; cached--) {
    int depth = cache ? 2 : 1; /* inside `if` or `else` with a cache */
    strbuf body = {0};
    if (cached) {
      sb_printf(&t, "  float kf_col[%d]; // the column, while it fits\n  if ((%s) <= %d) {\n", cache, hi.s, cache);
      /* every load first, in a loop of its own: a sum after each would hold the warp at
       * each load until its value came */
      sb_printf(&body, "kf_col[kf_c] = %s[%s];\n", xname, L.s);
      loop(&t, cache, hi.s, J, cv->name, depth, body.s);
      sb_free(&body);
      sb_printf(&body, "const float %s = kf_col[kf_c];\n", xv);
    } else {
      if (cache)
        sb_puts(&t, "  } else {\n");
      sb_printf(&body, "const float %s = %s[%s];\n", xv, xname, L.s);
    }
    if (s.has_p) {
      sb_puts(&body, "{\n");
      element(&xp, L.s, pt, tsum, 0, &body);
      sb_puts(&body, "}\n");
    } else {
      sb_printf(&body, tsum, xv);
      sb_puts(&body, "\n");
    }
    loop(&t, cached ? cache : 0, hi.s, J, cv->name, depth, body.s);
    sb_free(&body);
    /* the statistic, E on it */
    print_indent(&t, depth);
    sb_printf(&t, "const float %s = ", s.has_e ? r_e : stat_a);
    print_expr(rk, s.store->value, &t);
    sb_puts(&t, ";\n");
    if (s.has_e) {
      print_indent(&t, depth);
      sb_printf(&t, "float %s;\n", stat_a);
      print_indent(&t, depth);
      sb_puts(&t, "{\n");
      element(&xe, o.s, ef, arena_printf(a, "%s = %%s;", stat_a), depth, &t);
      print_indent(&t, depth);
      sb_puts(&t, "}\n");
    }
    /* A down the column */
    if (cached)
      sb_printf(&body, "const float %s = kf_col[kf_c];\n", xv_a);
    else
      sb_printf(&body, "const float %s = %s[%s];\n", xv_a, xname, L.s);
    sb_puts(&body, "{\n");
    element(&xa, L.s, -1, NULL, 0, &body);
    sb_puts(&body, "}\n");
    loop(&t, cached ? cache : 0, hi.s, J, cv->name, depth, body.s);
    sb_free(&body);
  }
  if (cache)
    sb_puts(&t, "  }\n");
  sb_puts(&t, "}\n");
  /* the launch, where A's was; R, P and E go, and so do the intermediates */
  strbuf call = {0};
  pass_print_launch_args(rst, name, NULL, NULL, args.s, &call);
  int ok = variant_replace_step(v, ei, s.ast, call.s) && variant_remove_step(v, ei, rst);
  if (ok && s.has_p)
    ok = variant_remove_step(v, ei, s.p.mem[0].st) && remove_scratch(v, ei, e, targ->buffer);
  for (int i = 0; ok && s.has_e && i < s.ex.nmem; i++)
    ok = variant_remove_step(v, ei, s.ex.mem[i].st);
  for (int b = 0; ok && s.has_e && b < s.ex.nbufs; b++)
    if (s.ex.bufs[b].written)
      ok = remove_scratch(v, ei, e, s.ex.bufs[b].id);
  if (ok)
    ok = remove_scratch(v, ei, e, oarg->buffer);
  if (ok) {
    variant_add_kernel(v, ei, name, t.s);
    variant_note(v, arena_printf(a, "reduce-apply(cache=%d)@%s#%d-#%d", cache, e->name, site_->first_step,
                                 site_->last_step),
                 arena_printf(a, "reduce-apply: %s -> %s (cache %d)", site_->what, name, cache));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "reduce-apply: overlapping changes at %s; the variant is dropped",
                site_->what);
  }
  sb_free(&t);
  sb_free(&args);
  sb_free(&L);
  sb_free(&o);
  sb_free(&hi);
  sb_free(&call);
  return ok;
}

const pass pass_reduce_apply = {
    "reduce-apply",
    "compute a per-thread statistic over a strided dimension and the broadcast that applies it in one kernel",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
