/*
 * one_pass_moments.c: a variance's second pass over the data, inside one kernel, taken
 * from moments kept during the first. Norm kernels compute a block's mean and then the
 * squared deviations from it with two loops over the same row:
 *
 *   float s = 0;  for (J j = lo; j < hi; j += st) { decls; s += f(j); }
 *   ... s combined across the block; mu = g(total) ...
 *   float q = 0;  for (J j = lo; j < hi; j += st) { float d = f(j) - M; q += d * d; }
 *   ... q combined across the block ...
 *
 * so every element is loaded twice. The pass keeps, beside s, this thread's count, mean
 * and sum of squared deviations of the terms it adds (Welford; four terms at a time, their
 * own mean and deviations merged in by Chan's formula, so one division per four terms),
 * and replaces the second loop by what it sums over the same terms of the same thread:
 *
 *   sum_j (f(j) - M)^2 = m2 + n (mean - M)^2
 *
 * Everything else stays as written: s is summed in the same order as before (the block's
 * mean is bit for bit the reference's), the combination of q across the block (a shared-
 * memory tree, a helper such as block_sum) is untouched, and so are the stores and any
 * loop after (the normalising loop of a fused group norm). M need not be the mean, nor the
 * same in every thread: the identity holds for any M. No E[x^2] - E[x]^2: nothing cancels
 * when the mean is far from zero.
 *
 * Legal when (checked on the model; otherwise nothing changes, and a remark says why when
 * a second loop sums squares):
 *   - the kernel is lifted and no template, and its launch no other pass changed;
 *   - both loops are reduction loops (reduce.h) at the top level of the kernel's body, the
 *     first before the second, summing float terms into float accumulators; their bounds
 *     and steps are the same expressions of parameters, builtins and single-definition
 *     locals (so each thread takes the same j in both), their variables of one type;
 *   - the second's term is (A - M) * (A - M), directly or through a declaration d = A - M,
 *     where A is the first's term f (the same arithmetic on the same loads, compared with
 *     the loop variables in place of each other) and M is a float that names neither the
 *     loop variable nor the loop's declarations (so it is the same at every step);
 *   - f loads only from buffers the kernel never writes, and calls no atomic, warp or
 *     barrier function (so the second loop would have loaded what the first did).
 * The second sum is computed in another order: it differs by rounding, which the entry's
 * tolerance covers and the verifier checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "reduce.h"

enum { MAX_PAIRS = 4, MAX_TOP = 256 };

/* A first loop and the second loop it makes unnecessary. */
typedef struct moments_pair {
  red_loop l1, l2;
  const kexpr *m;               /* M */
} moments_pair;

enum { MAX_SPLIT_LOOPS = 16, MAX_TREES = 8 };

/* A shared-memory tree of the kernel and its operator (NULL: a sum). */
typedef struct split_tree {
  const kstmt *s;
  int smem;
  const char *fn;
} split_tree;

typedef struct moments {
  const kstep *st;
  const kkernel *k;
  moments_pair pairs[MAX_PAIRS];
  int npairs;
  /* the cluster split (split_check): */
  const char *split_why;        /* why the rows cannot be split, or NULL */
  const kstmt *loops[MAX_SPLIT_LOOPS]; /* the block-stride loops */
  int nloops;
  split_tree trees[MAX_TREES];
  int ntrees;
} moments;

/* ---- the pattern ---- */

/* Whether e loads only from buffers the kernel never writes and calls nothing with an
 * effect on memory or on other threads. */
static int pure(const kkernel *k, const kexpr *e) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_LOAD:
    if (e->param < 0 || k->params[e->param].writes)
      return 0;
    break;
  case KE_ADDR: return 0;
  case KE_CALL:
    if (!strncmp(e->text, "atomic", 6) || !strncmp(e->text, "__shfl", 6) || !strncmp(e->text, "__sync", 6) ||
        !strncmp(e->text, "__ballot", 8) || !strncmp(e->text, "__any", 5) || !strncmp(e->text, "__all", 5) ||
        !strncmp(e->text, "__activemask", 12))
      return 0;
    break;
  default: break;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!pure(k, e->args[i]))
      return 0;
  return pure(k, e->a) && pure(k, e->b) && pure(k, e->c);
}

static int is_float_sum(const kkernel *k, const red_loop *L) {
  return !L->fn && k->vars[L->acc].type == KT_F32 && L->term->type == KT_F32;
}

/* e as (A - M) through the loop's declarations: fills *a and *m. */
static int deviation(const kkernel *k, const red_loop *L, const kexpr *e, const kexpr **a, const kexpr **m) {
  e = kx_strip(kx_resolve(k, e, L->loop->loop_var));
  if (!e || e->kind != KE_BINARY || e->op != KO_SUB)
    return 0;
  *a = e->a;
  *m = e->b;
  return 1;
}

/* Whether loop l2 sums the squared deviations of l1's terms from some M; fills p. NULL,
 * or why not. */
static const char *match_pair(const kstep *st, const kkernel *k, const red_loop *l1, const red_loop *l2,
                              moments_pair *p) {
  const kexpr *t = kx_strip(l2->term);
  const kexpr *a1, *m1, *a2, *m2;
  if (!t || t->kind != KE_BINARY || t->op != KO_MUL || !deviation(k, l2, t->a, &a1, &m1) ||
      !deviation(k, l2, t->b, &a2, &m2))
    return "sums no (f - M) * (f - M)";
  int j1 = l1->loop->loop_var, j2 = l2->loop->loop_var;
  /* within the second loop's term; and from the first loop to the second (where a
   * variable is the same only when it has one definition, and loads are compared by
   * buffer and index) */
  kx_cmp self = {{k, k}, {st, st}, {j2, j2}}, across = {{k, k}, {st, st}, {j1, j2}};
  if (!kx_same(&self, a1, a2) || !kx_same(&self, m1, m2))
    return "sums the product of two different deviations";
  if (!kx_same(&across, l1->term, a1))
    return "sums the squared deviations of another term than the first loop sums";
  if (!kx_same(&across, l1->loop->lo, l2->loop->lo) || !kx_same(&across, l1->loop->hi, l2->loop->hi) ||
      !kx_same(&across, l1->loop->stride, l2->loop->stride) || !pure(k, l1->loop->hi) || !pure(k, l1->loop->stride))
    return "does not run over the same elements as the first loop (its bounds or step differ, or are not shown the same)";
  if (strcmp(k_unconst(k->vars[j1].type_spelling), k_unconst(k->vars[j2].type_spelling)))
    return "counts in another type than the first loop";
  if (kx_strip(m1)->type != KT_F32 && m1->type != KT_F32)
    return "subtracts no float";
  if (kx_names(m1, j2) || kx_names(m1, l2->acc))
    return "subtracts a value that changes in the loop";
  for (int i = 0; i < l2->ndecls; i++)
    if (kx_names(m1, l2->decls[i]->var))
      return "subtracts a value that changes in the loop";
  if (!pure(k, l1->term))
    return "sums terms that load from a buffer the kernel writes, or that call an atomic, warp or barrier function";
  for (int i = 0; i < l1->ndecls; i++)
    if (!pure(k, l1->decls[i]->value))
      return "sums terms that load from a buffer the kernel writes, or that call an atomic, warp or barrier function";
  p->l1 = *l1;
  p->l2 = *l2;
  p->m = m1;
  return NULL;
}

static void split_check(moments *mo);

/* The pairs of the kernel st launches. NULL, or why not; *quiet when there is nothing
 * that looks like a variance's second loop. */
static const char *check(const kmodel *m, const kstep *st, moments *mo, int *quiet) {
  memset(mo, 0, sizeof *mo);
  *quiet = 1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  mo->st = st;
  mo->k = k;
  if (!k->body || k->is_template || st->nargs != k->nparams)
    return "is no lifted kernel launched with its parameters";
  const kstmt *v[MAX_TOP];
  int n = 0;
  kst_flatten(k->body, v, &n, MAX_TOP);
  if (n > MAX_TOP)
    return "has too many statements";
  const char *why = NULL;
  char used[MAX_TOP] = {0};
  for (int i = 0; i < n && mo->npairs < MAX_PAIRS; i++) {
    red_loop l1;
    if (used[i] || !red_match_loop(k, v[i], &l1) || !is_float_sum(k, &l1))
      continue;
    for (int i2 = i + 1; i2 < n; i2++) {
      red_loop l2;
      if (used[i2] || !red_match_loop(k, v[i2], &l2) || !is_float_sum(k, &l2))
        continue;
      const kexpr *t = kx_strip(l2.term);
      int squares = t && t->kind == KE_BINARY && t->op == KO_MUL;
      const char *w = match_pair(st, k, &l1, &l2, &mo->pairs[mo->npairs]);
      if (!w) {
        used[i] = used[i2] = 1;
        mo->npairs++;
        break;
      }
      if (squares && !why) {
        *quiet = 0;
        why = arena_printf(m->arena, "the loop at line %u %s", model_line(m, l2.loop->pos), w);
      }
    }
  }
  if (mo->npairs) {
    split_check(mo);
    return NULL;
  }
  return why ? why : "has no second loop over a row that sums squared deviations";
}

/* ---- several blocks a row (a thread-block cluster) ----
 * With split = P > 1 each row is computed by a cluster of P blocks (sm_90): block
 * blockIdx.x works on row blockIdx.x / P, each block-stride loop takes every P-th stride
 * of the row starting at the block's rank, and after each shared-memory tree the blocks
 * combine their trees' results through distributed shared memory, in rank order, so that
 * every block of the cluster then holds the row's value where its own tree left it. The
 * rest of the kernel reads that value as before: stores under threadIdx.x == 0 happen once
 * a block (P times, the same value), stores in block-stride loops once an element. Few
 * rows (a layer norm over 16 samples) then fill the GPU. */

/* Whether e is threadIdx.x (through single-definition locals). */
static int is_tid(const kkernel *k, const kexpr *e) {
  e = kx_strip(kx_resolve(k, e, -1));
  e = kx_strip(e);
  return e && e->kind == KE_BUILTIN && e->builtin == KB_TID_X;
}

/* Whether e is the block's size: blockDim.x, or the launch's constant block. */
static int is_block_size(const kexpr *e, long long threads) {
  e = kx_strip(e);
  if (!e)
    return 0;
  if (e->kind == KE_BUILTIN)
    return e->builtin == KB_BDIM_X;
  return (e->kind == KE_INT || e->kind == KE_CONST) && threads > 0 && e->ival == threads;
}

static int is_block_loop(const kkernel *k, const kstmt *s, long long threads) {
  return s->kind == KST_FOR && s->loop_var >= 0 && s->lo && s->stride && s->init && s->step && is_tid(k, s->lo) &&
         is_block_size(s->stride, threads) && !kst_assigns(s->then, s->loop_var);
}

/* The tree t is, and its operator: fills *tr. */
static int split_tree_of(const kkernel *k, const kstmt *t, long long threads, split_tree *tr) {
  static const char *const ops[] = {NULL, "fmaxf", "fminf", "max", "min"};
  const kstmt *v[4];
  int n = 0;
  if (t->kind != KST_FOR || !t->then)
    return 0;
  kst_flatten(t->then, v, &n, 4);
  if (n != 2 || v[0]->kind != KST_IF || !v[0]->then)
    return 0;
  const kstmt *u[2];
  int nu = 0;
  kst_flatten(v[0]->then, u, &nu, 2);
  if (nu != 1 || u[0]->kind != KST_STORE || u[0]->array_var < 0)
    return 0;
  int smem = u[0]->array_var;
  if (k->vars[smem].kind != KV_SHARED || k->vars[smem].type != KT_F32)
    return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (red_match_tree(k, t, smem, ops[i], threads)) {
      tr->s = t;
      tr->smem = smem;
      tr->fn = ops[i];
      return 1;
    }
  return 0;
}

/* Whether e touches shared memory other than a shared scalar, at an index other than
 * threadIdx.x or 0; or passes a shared array to a call; or uses what a split may not. */
static const char *split_expr(const kkernel *k, const kexpr *e) {
  if (!e)
    return NULL;
  if (e->kind == KE_BUILTIN && (e->builtin == KB_GDIM_X || e->builtin == KB_GDIM_Y || e->builtin == KB_GDIM_Z ||
                                e->builtin == KB_BID_Y || e->builtin == KB_BID_Z))
    return "it uses gridDim or a second grid dimension";
  if ((e->kind == KE_LOAD || e->kind == KE_ADDR) && e->param < 0 && e->var >= 0 &&
      k->vars[e->var].kind == KV_SHARED && !k->vars[e->var].shared_scalar) {
    const kexpr *i = kx_strip(e->a);
    if (e->kind == KE_ADDR || !(is_tid(k, i) || (i && i->kind == KE_INT && i->ival == 0)))
      return "it reads shared memory at other places than its own thread's and the first";
  }
  if (e->kind == KE_VAR && k->vars[e->var].kind == KV_SHARED && !k->vars[e->var].shared_scalar)
    return "it passes a shared array on";
  if (e->kind == KE_CALL && (!strncmp(e->text, "atomic", 6) || !strncmp(e->text, "__shfl", 6)))
    return "it calls atomic or warp functions";
  for (int i = 0; i < e->nargs; i++) {
    const char *w = split_expr(k, e->args[i]);
    if (w)
      return w;
  }
  const char *w = split_expr(k, e->a);
  if (!w)
    w = split_expr(k, e->b);
  if (!w)
    w = split_expr(k, e->c);
  return w;
}

/* Checks statement s, under `owner`: 0 at the top, 1 inside block-stride loop j, 2 under
 * if (threadIdx.x == 0). */
static const char *split_stmt(moments *mo, const kstmt *s, int owner, int j) {
  const kkernel *k = mo->k;
  long long threads = mo->st->block_threads;
  if (!s)
    return NULL;
  const char *w = NULL;
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody && !w; i++)
      w = split_stmt(mo, s->body[i], owner, j);
    return w;
  case KST_FOR: {
    for (int p = 0; p < mo->npairs; p++)
      if (s == mo->pairs[p].l2.loop)
        return NULL; /* it goes */
    split_tree tr;
    if (!owner && split_tree_of(k, s, threads, &tr)) {
      if (mo->ntrees == MAX_TREES)
        return "it has too many trees";
      mo->trees[mo->ntrees++] = tr;
      return NULL;
    }
    if (owner || !is_block_loop(k, s, threads))
      return "it has a loop that does not stride over the row by the block";
    if (mo->nloops == MAX_SPLIT_LOOPS)
      return "it has too many loops";
    mo->loops[mo->nloops++] = s;
    w = split_expr(k, s->hi);
    return w ? w : split_stmt(mo, s->then, 1, s->loop_var);
  }
  case KST_IF: {
    const kexpr *c = kx_strip(s->cond);
    int tid0 = c && c->kind == KE_BINARY && c->op == KO_EQ &&
               ((is_tid(k, c->a) && kx_strip(c->b)->kind == KE_INT && kx_strip(c->b)->ival == 0) ||
                (is_tid(k, c->b) && kx_strip(c->a)->kind == KE_INT && kx_strip(c->a)->ival == 0));
    w = split_expr(k, s->cond);
    if (!w)
      w = split_stmt(mo, s->then, tid0 && !owner && !s->orelse ? 2 : owner, j);
    return w ? w : split_stmt(mo, s->orelse, owner, j);
  }
  case KST_STORE:
    if (s->param >= 0 && !owner)
      return "it stores to global memory outside the row's loops and thread 0";
    if (s->param >= 0 && owner == 2 && s->op >= 0)
      return "thread 0 updates global memory in place";
    if (s->param >= 0 && owner == 1 && !kx_names(kx_resolve(k, s->index, -1), j) && !kx_names(s->index, j))
      return "it stores in a loop over the row at a place that is not the loop's element";
    if (s->array_var >= 0 && k->vars[s->array_var].kind == KV_SHARED && !k->vars[s->array_var].shared_scalar &&
        !is_tid(k, s->index))
      return "it writes shared memory at other places than its own thread's";
    w = split_expr(k, s->index);
    return w ? w : split_expr(k, s->value);
  case KST_ATOMIC: return "it uses atomics";
  case KST_WHILE: return "it has a while loop";
  case KST_DECL:
  case KST_ASSIGN:
  case KST_EXPR:
  case KST_RETURN: return split_expr(k, s->value);
  case KST_SYNC: return owner ? "it synchronizes inside a loop or a condition" : NULL;
  default: return "it has a statement the split does not know";
  }
}

/* Whether the kernel's rows can be split across a cluster; sets mo->split_why. */
static void split_check(moments *mo) {
  const kstep *st = mo->st;
  const kkernel *k = mo->k;
  mo->split_why = NULL;
  if (!st->grid_y || st->grid_y->kind != XE_INT || st->grid_y->ival != 1 || st->grid_var ||
      !strncmp(st->grid, "dim3", 4))
    mo->split_why = "its grid is not one integer";
  for (int p = 0; p < k->nparams && !mo->split_why; p++)
    if (k->params[p].is_pointer && k->params[p].reads && k->params[p].writes)
      mo->split_why = "it reads a buffer it writes";
  if (!mo->split_why)
    mo->split_why = split_stmt(mo, k->body, 0, -1);
  if (!mo->split_why && !mo->ntrees)
    mo->split_why = "it combines its threads in no shared-memory tree";
}

static const int split_values[] = {1, 8};
static const pass_param params[] = {{"split", split_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kmodel *m = v->m;
  const kstep *st = pass_step_launch(v, ps);
  moments *mo = ctx;
  int quiet;
  if (!st)
    return 0;
  const char *why = check(m, st, mo, &quiet);
  if (why) {
    if (ps->remarks && !quiet)
      ps->why = arena_printf(m->arena, "'%s': %s", mo->k->name, why);
    return 0;
  }
  ps->first = ps->last = st;
  ps->what = arena_printf(m->arena, "%s (line %u), %d variance%s in one pass", mo->k->name, mo->k->loc.line,
                          mo->npairs, mo->npairs > 1 ? "s" : "");
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  moments mo = {0};
  return pass_each_step(v, "one-pass-moments", "not fused", step, &mo, sites, nsites, remarks, d);
}

/* ---- the kernel ---- */

typedef struct printing {
  const kmodel *m;
  const moments *mo;
  const char *merge;            /* the merge function's name */
  const char *name;             /* the kernel's */
  int split;                    /* blocks a row (1: one) */
  print_hooks hooks;
} printing;

/* With a split: blockIdx.x becomes the row, and each block-stride loop starts at the
 * block's rank and strides over the cluster. */
static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  const moments *mo = p->mo;
  if (p->split <= 1)
    return 0;
  if (e->kind == KE_BUILTIN && e->builtin == KB_BID_X) {
    sb_printf(b, "(blockIdx.x / %d)", p->split);
    return 1;
  }
  for (int i = 0; i < mo->nloops; i++) {
    const kstmt *s = mo->loops[i];
    if (e == s->lo || (s->init && e == s->init->value)) {
      sb_puts(b, "(");
      print_expr(mo->k, e, b);
      sb_printf(b, " + (blockIdx.x %% %d) * ", p->split);
      print_expr(mo->k, s->stride, b);
      sb_puts(b, ")");
      return 1;
    }
    if (e == s->stride || (s->step && e == s->step->value)) {
      sb_puts(b, "(");
      print_expr(mo->k, e, b);
      sb_printf(b, " * %d)", p->split);
      return 1;
    }
  }
  return 0;
}

static void pexpr(const printing *p, const kexpr *e, strbuf *b) { print_expr_with(p->mo->k, &p->hooks, e, b); }

/* (long long)(e) */
static void pwide(const printing *p, const kexpr *e, strbuf *b) {
  sb_puts(b, "(long long)(");
  pexpr(p, e, b);
  sb_puts(b, ")");
}

/* One term of loop L into `x`: the loop variable as kf_j + copy steps, the declarations,
 * then x = f. */
static void print_term(const printing *p, const red_loop *L, int copy, const char *x, int depth, strbuf *b) {
  const kkernel *k = p->mo->k;
  const kvar *jv = &k->vars[L->loop->loop_var];
  const char *J = k_unconst(jv->type_spelling);
  print_indent(b, depth);
  sb_printf(b, "const %s %s = (%s)(kf_j", J, jv->name, J);
  if (copy) {
    sb_printf(b, " + %d * ", copy);
    pwide(p, L->loop->stride, b);
  }
  sb_puts(b, ");\n");
  for (int i = 0; i < L->ndecls; i++) {
    const kvar *dv = &k->vars[L->decls[i]->var];
    size_t n = strlen(dv->type_spelling);
    print_indent(b, depth);
    sb_printf(b, "%s%s%s = ", dv->type_spelling, n && dv->type_spelling[n - 1] == '*' ? "" : " ", dv->name);
    pexpr(p, L->decls[i]->value, b);
    sb_puts(b, ";\n");
  }
  print_indent(b, depth);
  sb_printf(b, "%s = ", x);
  pexpr(p, L->term, b);
  sb_puts(b, ";\n");
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  printing *p = ctx;
  const moments *mo = p->mo;
  const kkernel *k = mo->k;
  for (int ti = 0; p->split > 1 && ti < mo->ntrees; ti++) {
    const split_tree *tr = &mo->trees[ti];
    if (s != tr->s)
      continue;
    const char *red = k->vars[tr->smem].name;
    print_stmt_with(k, &p->hooks, s, depth, b);
    print_indent(b, depth);
    sb_printf(b, "{ // kfuse one-pass-moments: the cluster's %d blocks combine their %s[0], in rank order\n", p->split,
              red);
    print_indent(b, depth + 1);
    sb_printf(b, "%s_cluster_sync();\n", p->name);
    print_indent(b, depth + 1);
    sb_puts(b, "float kf_v = 0.0f;\n");
    print_indent(b, depth + 1);
    sb_puts(b, "if (threadIdx.x == 0) {\n");
    print_indent(b, depth + 2);
    sb_printf(b, "kf_v = %s_cluster_load(&%s[0], 0);\n", p->name, red);
    print_indent(b, depth + 2);
    sb_printf(b, "for (unsigned kf_r = 1; kf_r < %d; kf_r++)\n", p->split);
    print_indent(b, depth + 3);
    if (tr->fn)
      sb_printf(b, "kf_v = %s(kf_v, %s_cluster_load(&%s[0], kf_r));\n", tr->fn, p->name, red);
    else
      sb_printf(b, "kf_v += %s_cluster_load(&%s[0], kf_r);\n", p->name, red);
    print_indent(b, depth + 1);
    sb_puts(b, "}\n");
    print_indent(b, depth + 1);
    sb_printf(b, "%s_cluster_sync(); // every block has read the others' before any writes its own\n", p->name);
    print_indent(b, depth + 1);
    sb_puts(b, "if (threadIdx.x == 0)\n");
    print_indent(b, depth + 2);
    sb_printf(b, "%s[0] = kf_v;\n", red);
    print_indent(b, depth + 1);
    sb_puts(b, "__syncthreads();\n");
    print_indent(b, depth);
    sb_puts(b, "}\n");
    return 1;
  }
  for (int pi = 0; pi < mo->npairs; pi++) {
    const moments_pair *pr = &mo->pairs[pi];
    const red_loop *L = &pr->l1;
    const char *acc = k->vars[L->acc].name;
    int n = pi + 1;
    if (s == pr->l1.loop) {
      print_indent(b, depth);
      sb_printf(b, "// kfuse one-pass-moments: %s as before, and the count, mean and squared deviations of this\n", acc);
      print_indent(b, depth);
      sb_printf(b, "// thread's terms (Welford, four at a time), for the loop at line %u\n",
                model_line(p->m, pr->l2.loop->pos));
      print_indent(b, depth);
      sb_printf(b, "float kf_n%d = 0.0f, kf_mean%d = 0.0f, kf_m2%d = 0.0f;\n", n, n, n);
      print_indent(b, depth);
      sb_puts(b, "{\n");
      print_indent(b, depth + 1);
      sb_puts(b, "long long kf_j = ");
      pexpr(p, L->loop->lo, b);
      sb_puts(b, ";\n");
      print_indent(b, depth + 1);
      sb_puts(b, "for (; kf_j + 3 * ");
      pwide(p, L->loop->stride, b);
      sb_puts(b, " < ");
      pwide(p, L->loop->hi, b);
      sb_puts(b, "; kf_j += 4 * ");
      pwide(p, L->loop->stride, b);
      sb_puts(b, ") {\n");
      print_indent(b, depth + 2);
      sb_puts(b, "float kf_x0, kf_x1, kf_x2, kf_x3;\n");
      for (int c = 0; c < 4; c++) {
        char x[16];
        snprintf(x, sizeof x, "kf_x%d", c);
        print_indent(b, depth + 2);
        sb_puts(b, "{\n");
        print_term(p, L, c, x, depth + 3, b);
        print_indent(b, depth + 2);
        sb_puts(b, "}\n");
      }
      for (int c = 0; c < 4; c++) {
        print_indent(b, depth + 2);
        sb_printf(b, "%s += kf_x%d;\n", acc, c);
      }
      print_indent(b, depth + 2);
      sb_puts(b, "const float kf_c = (kf_x0 + kf_x1) + (kf_x2 + kf_x3), kf_cm = kf_c * 0.25f;\n");
      print_indent(b, depth + 2);
      sb_puts(b, "const float kf_d0 = kf_x0 - kf_cm, kf_d1 = kf_x1 - kf_cm, kf_d2 = kf_x2 - kf_cm, kf_d3 = kf_x3 - kf_cm;\n");
      print_indent(b, depth + 2);
      sb_printf(b, "%s(kf_n%d, kf_mean%d, kf_m2%d, 4.0f, kf_cm, (kf_d0 * kf_d0 + kf_d1 * kf_d1) + (kf_d2 * kf_d2 + kf_d3 * kf_d3));\n",
                p->merge, n, n, n);
      print_indent(b, depth + 1);
      sb_puts(b, "}\n");
      print_indent(b, depth + 1);
      sb_puts(b, "for (; kf_j < ");
      pwide(p, L->loop->hi, b);
      sb_puts(b, "; kf_j += ");
      pwide(p, L->loop->stride, b);
      sb_puts(b, ") {\n");
      print_indent(b, depth + 2);
      sb_puts(b, "float kf_x;\n");
      print_term(p, L, 0, "kf_x", depth + 2, b);
      print_indent(b, depth + 2);
      sb_printf(b, "%s += kf_x;\n", acc);
      print_indent(b, depth + 2);
      sb_printf(b, "kf_n%d += 1.0f;\n", n);
      print_indent(b, depth + 2);
      sb_printf(b, "const float kf_d = kf_x - kf_mean%d;\n", n);
      print_indent(b, depth + 2);
      sb_printf(b, "kf_mean%d += kf_d / kf_n%d;\n", n, n);
      print_indent(b, depth + 2);
      sb_printf(b, "kf_m2%d += kf_d * (kf_x - kf_mean%d);\n", n, n);
      print_indent(b, depth + 1);
      sb_puts(b, "}\n");
      print_indent(b, depth);
      sb_puts(b, "}\n");
      return 1;
    }
    if (s == pr->l2.loop) {
      const char *q = k->vars[pr->l2.acc].name;
      print_indent(b, depth);
      sb_printf(b, "{ // kfuse one-pass-moments: the loop's sum of squared deviations, from this thread's moments\n");
      print_indent(b, depth + 1);
      sb_puts(b, "const float kf_mu = ");
      pexpr(p, pr->m, b);
      sb_puts(b, ";\n");
      print_indent(b, depth + 1);
      sb_printf(b, "%s += kf_m2%d + kf_n%d * (kf_mean%d - kf_mu) * (kf_mean%d - kf_mu);\n", q, n, n, n, n);
      print_indent(b, depth);
      sb_puts(b, "}\n");
      return 1;
    }
  }
  return 0;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *st = pass_site_launch(v, site, site->last_step);
  static moments mo;
  int quiet;
  if (!st || check(m, st, &mo, &quiet))
    return pass_site_gone(v, "one-pass-moments", site, d);
  int split = values ? values[0] : split_values[0];
  if (mo.split_why)
    split = 1; /* the same variant as without: the pipeline drops it as a duplicate */
  const kkernel *k = mo.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_one_pass", k->name));
  printing p = {m, &mo, arena_printf(v->a, "%s_merge", name), name, split, {stmt_hook, expr_hook, NULL}};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0};
  sb_printf(&t, "// kfuse one-pass-moments of %s (line %u): %d variance%s from moments kept in the first pass\n",
            k->name, k->loc.line, mo.npairs, mo.npairs > 1 ? "s" : "");
  sb_printf(&t, "// over the row, so that the row is read once for both sums; %s merges two\n"
                "// (count, mean, squared deviations) by Chan's formula.\n",
            p.merge);
  if (split > 1)
    sb_printf(&t, "// A cluster of %d blocks a row (sm_90): each block takes every %dth stride of the row from its\n"
                  "// rank, and the blocks combine their shared-memory trees through distributed shared memory.\n",
              split, split);
  sb_printf(&t, "static __device__ __forceinline__ void %s(float& n, float& mean, float& m2, float n2, float mean2,\n"
                "    float m22) {\n"
                "  const float kf_n = n + n2, kf_d = mean2 - mean, kf_w = n2 / kf_n;\n"
                "  mean += kf_d * kf_w;\n"
                "  m2 += m22 + kf_d * kf_d * n * kf_w;\n"
                "  n = kf_n;\n"
                "}\n",
            p.merge);
  if (split > 1)
    sb_printf(&t, "// the cluster's barrier (release and acquire: shared memory written before it is seen after it)\n"
                  "static __device__ __forceinline__ void %s_cluster_sync() {\n"
                  "  asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: \"memory\");\n"
                  "}\n"
                  "// a float of block `rank` of the cluster, at the address p has in this block's shared memory\n"
                  "static __device__ __forceinline__ float %s_cluster_load(const float* p, unsigned rank) {\n"
                  "  unsigned kf_a = (unsigned)__cvta_generic_to_shared(p), kf_r;\n"
                  "  float kf_v;\n"
                  "  asm volatile(\"mapa.shared::cluster.u32 %%0, %%1, %%2;\" : \"=r\"(kf_r) : \"r\"(kf_a), \"r\"(rank));\n"
                  "  asm volatile(\"ld.shared::cluster.f32 %%0, [%%1];\" : \"=f\"(kf_v) : \"r\"(kf_r) : \"memory\");\n"
                  "  return kf_v;\n"
                  "}\n",
              name, name);
  if (split > 1)
    sb_printf(&t, "__global__ void __cluster_dims__(%d, 1, 1) %s(", split, name);
  else
    sb_printf(&t, "__global__ void %s(", name);
  pass_print_params(k, &t);
  sb_puts(&t, ") ");
  print_body_with(k, &p.hooks, &t);
  sb_puts(&t, "\n");
  pass_print_launch(st, name, split > 1 ? arena_printf(v->a, "(%s) * %d", st->grid, split) : NULL, NULL, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    const char *params_ = split > 1 ? arena_printf(v->a, "(split=%d)", split) : "";
    variant_note(v, arena_printf(v->a, "one-pass-moments%s@%s#%d", params_, e->name, site->first_step),
                 arena_printf(v->a, "one-pass-moments: %s -> %s%s", site->what, name,
                              split > 1 ? arena_printf(v->a, " (a cluster of %d blocks a row)", split) : ""));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "one-pass-moments: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  return ok;
}

const pass pass_one_pass_moments = {
    "one-pass-moments",
    "take a variance's second loop over a row from moments kept in the first (one read of the row)",
    find,
    get_params,
    apply,
    0, /* by default */
    1, /* optional: row-warps, after it, may take the same launch (a group norm's short rows) */
    0, /* not parsed again */
};
