/*
 * parallelize.c: serial code becomes parallel kernels.
 *
 * The input is a port's starting point: a kernel that does all its work in one thread,
 * launched <<<1, 1>>> by its entry (kfuse --emit=reference makes that form from plain C
 * functions). The pass plans the kernel's top-level statements as a sequence of *items*,
 * each run by its own launch in the order of the statements, so that every item sees
 * what the ones before it wrote (the stream orders them):
 *
 *   parallel   a canonical loop whose iterations are independent (dep.h proves it with
 *              isl, for all sizes), with up to two more loops nested inside it that are
 *              independent too (each after declarations at most, which stay after their
 *              loop's header): a 1-, 2- or 3-D grid, each loop a grid-stride loop
 *              over its dimension (the innermost loop along x), the body as written;
 *              A loop whose only conflict is an integer buffer it only adds to (a
 *              histogram) is parallel too, its additions atomic (exact in any order);
 *   reduction  a loop independent but for accumulators declared before it and updated
 *              only by `s += f`, `s -= f`, `s = s + f`, `s = fmaxf(s, f)` (fminf, max,
 *              min...) or `if (f > s) s = f;`, or an argmax's value and index (`if (f > v)
 *              { v = f; w = i; }`, ties to the first or last index as the comparison
 *              says): each thread reduces its share of the
 *              iterations, blocks combine theirs by a fixed tree in shared memory, and one
 *              block combines the blocks' partial results in a fixed order: deterministic,
 *              and a sum reassociated (the entry's tolerance covers it; the verifier
 *              checks it);
 *   scan       `y[i] = y[i - 1] op g(i)` alone in its loop (op + or max/min, g reading no
 *              y): each block scans its share, one block scans the blocks' totals from
 *              y[lo - 1] in a fixed order, each block adds its offset;
 *   interchanged  a loop that carries a dependence around one that does not (its one
 *              statement, bounds free of the outer variable): a 1-D grid over the inner
 *              loop, each thread running the outer one (dep.h's `around`);
 *   distributed  a loop that carries a dependence, its body's statements in groups that
 *              share no variable it changes (a declaration recomputable in each part is
 *              copied; a loop in the body is split the same way first): one loop per group,
 *              in the order of the groups' first statements, each planned alone, where that
 *              order reverses no two accesses (dep.h's dep_reversed) and a part is parallel;
 *              also a parallel loop, where every part then makes a deeper grid;
 *   host loop  a loop that carries a dependence (a stencil's time loop, a factorization's
 *              pivot loop) whose bounds the host can evaluate and whose body holds an item
 *              of the kinds above: the loop runs on the host, one launch per item and step,
 *              its variable passed to each kernel;
 *   serial     every other statement, in runs: one thread, as before.
 *
 * Scalars declared at the top level (between items) live in a *frame*, one struct in device
 * memory allocated for the call (cudaMallocAsync on the entry's stream), which the serial
 * kernels read and write and the parallel ones read; a reduction's result is stored there.
 *
 * Legal when (checked on the model; otherwise nothing changes and -R says why, naming the
 * dependence: the statement pair and the distance):
 *   - the launch's grid and block are 1, its kernel is lifted, no template, and names no
 *     thread index, shared memory, barrier, warp function or atomic;
 *   - its pointer arguments are distinct buffers of the entry, without offsets;
 *   - the kernel does not return early and declares no array at its top level;
 *   - some loop becomes a parallel, reduction or scan item.
 * A loop is independent when dep.h finds no dependence it carries through memory, it
 * assigns no scalar declared outside it (but a reduction's accumulators), its variable is
 * its own (declared in its header, assigned only there) with a constant positive step, and
 * it neither returns nor breaks.
 * Parameter: block (256, 128, 512), the threads of a block; a 2-D grid's block is 32 wide.
 */
#include <string.h>

#include "../lib/print.h"
#include "dep.h"
#include "pass.h"
#include "reduce.h"

/* MAX_HOST: host loops do not nest (the launches would multiply: one per iteration of
 * both); a loop inside one stays in its kernel. */
enum { MAX_ITEMS = 64, MAX_STMTS = 256, MAX_RED = 4, MAX_HOST = 1, RED_PARTS = 1024, MAX_PIECES = 32, MAX_COPIES = 128 };

typedef enum item_kind { IT_SERIAL, IT_PAR, IT_RED, IT_SCAN, IT_LOOP, IT_WAVE } item_kind;

typedef struct item {
  item_kind kind;
  const kstmt **stmts;          /* IT_SERIAL: the statements, in order */
  int nstmts;
  const kstmt *loop;            /* IT_PAR, IT_RED, IT_LOOP */
  const kstmt *band[3];         /* IT_PAR: the loops of the grid, outermost first */
  int nband;
  int red[MAX_RED];             /* IT_RED: the accumulators */
  const char *red_op[MAX_RED];  /* "+", or the max/min function */
  int nred;
  unsigned long long atomic;    /* IT_PAR: bit i: parameter i is a histogram, its `+=` atomic */
  const kstmt *inner;           /* IT_PAR: the loop `loop` was the one statement of, now run
                                 * inside it by each thread (the two interchanged), or NULL */
  const kstmt *scan_store;      /* IT_SCAN: y[i] = y[i - 1] op g */
  const kexpr *scan_term;       /* g */
  const char *scan_op;          /* "+", or the max/min function */
  struct item *body;            /* IT_LOOP: the items of its body */
  int nbody;
  const kstmt *part_of;         /* the loop this item's loop is a part of (distributed), or NULL */
  const kstmt *pre[4];          /* IT_PAR: declarations before a deeper loop of the band in
                                 * a band loop's body, printed after that loop's header */
  int pre_level[4];             /* the band loop each is in */
  int npre;
  int front_s;                  /* IT_WAVE: band[0] and band[1] run in fronts of
                                 * front_s * band[0]'s variable + band[1]'s, one launch each */
} item;

/* The host loops around what is being planned or printed, outermost first. */
typedef struct hostloops {
  const kstmt *loop[MAX_HOST + 3];   /* + a grid's outer loops, for its extents (corners()) */
  int n;
} hostloops;

static int is_host_loop_var(const hostloops *h, int var) {
  for (int i = 0; i < h->n; i++)
    if (h->loop[i]->loop_var == var)
      return 1;
  return 0;
}

/* Whether e is arithmetic (no load or call) on literals (floating ones when `floats`), the
 * kernel's scalars, named constants and the variables var_ok(ctx, var) admits. */
static int arith_of(const kkernel *k, const kexpr *e, int floats, int (*var_ok)(const void *, int), const void *ctx) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_INT:
  case KE_CONST: return 1;
  case KE_FLT: return floats;
  case KE_PARAM: return !k->params[e->param].is_pointer;
  case KE_VAR: return var_ok(ctx, e->var);
  case KE_UNARY:
  case KE_BINARY:
  case KE_CAST:
  case KE_SELECT:
    return arith_of(k, e->a, floats, var_ok, ctx) && arith_of(k, e->b, floats, var_ok, ctx) &&
           arith_of(k, e->c, floats, var_ok, ctx);
  default: return 0;
  }
}

typedef struct host_ctx {
  const kkernel *k;
  const hostloops *h;
} host_ctx;

static int host_expr(const kkernel *k, const hostloops *h, const kexpr *e);

static int host_var(const void *ctx, int var) {
  const host_ctx *c = ctx;
  const kvar *v = &c->k->vars[var];
  return is_host_loop_var(c->h, var) || (v->kind == KV_LOCAL && !v->nassign && v->init && host_expr(c->k, c->h, v->init));
}

/* Whether e is an integer expression the host can evaluate: literals, the kernel's scalars,
 * named constants, the host loops' variables (h) and locals initialized once from such. */
static int host_expr(const kkernel *k, const hostloops *h, const kexpr *e) {
  host_ctx c = {k, h};
  return arith_of(k, e, 0, host_var, &c);
}

/* Whether e names the variable of one of the n loops (through locals' initializers too). */
static int names_band(const kkernel *k, const kexpr *e, const kstmt *const *loop, int n) {
  if (!e)
    return 0;
  if (e->kind == KE_VAR) {
    for (int i = 0; i < n; i++)
      if (e->var == loop[i]->loop_var)
        return 1;
    const kvar *v = &k->vars[e->var];
    return v->kind == KV_LOCAL && v->init && names_band(k, v->init, loop, n);
  }
  for (int i = 0; i < e->nargs; i++)
    if (names_band(k, e->args[i], loop, n))
      return 1;
  return names_band(k, e->a, loop, n) || names_band(k, e->b, loop, n) || names_band(k, e->c, loop, n);
}

/* Whether e is linear in the variables of the n loops: sums of them, each times a factor
 * that names none of them (locals through their initializers). */
static int linear_in_band(const kkernel *k, const kexpr *e, const kstmt *const *loop, int n) {
  if (!names_band(k, e, loop, n))
    return 1;
  switch (e->kind) {
  case KE_VAR:
    for (int i = 0; i < n; i++)
      if (e->var == loop[i]->loop_var)
        return 1;
    return linear_in_band(k, k->vars[e->var].init, loop, n);
  case KE_CAST: return linear_in_band(k, e->a, loop, n);
  case KE_UNARY: return (e->op == KO_NEG || e->op == KO_PLUS) && linear_in_band(k, e->a, loop, n);
  case KE_BINARY:
    if (e->op == KO_MUL && names_band(k, e->a, loop, n) && names_band(k, e->b, loop, n))
      return 0;
    return (e->op == KO_ADD || e->op == KO_SUB || e->op == KO_MUL) && linear_in_band(k, e->a, loop, n) &&
           linear_in_band(k, e->b, loop, n);
  default: return 0;
  }
}

typedef struct plan {
  const kmodel *m;
  const kkernel *k;
  hostloops host;               /* the host loops around the items being planned */
  int nparallel;                /* parallel and reduction items */
  const char *why;              /* the first loop refused, and why */
  const char *fail;             /* a reason the whole kernel is refused */
  const kstmt *refused[32];     /* the loops kept serial (for remarks), and why */
  const char *refused_why[32];
  int nrefused;
  const kstmt *around;          /* independent(): a loop around L taken as inside it */
  const kstmt *copy[MAX_COPIES], *origin[MAX_COPIES]; /* distribute()'s copies of loops, and
                                 * the loop of the kernel's body each stands for */
  int ncopies;
  unsigned char *copied;        /* distribute()'s declarations copied into each part, by
                                 * variable (nvars + 1; cleared by each call) */
} plan;

/* The loop of the kernel's body that L stands for: L, or what L is a copy of. */
static const kstmt *origin_of(const plan *p, const kstmt *L) {
  for (int i = 0; L && i < p->ncopies; i++)
    if (p->copy[i] == L)
      return p->origin[i];
  return L;
}

/* ---- what a loop may be ---- */

static int declares_var(const kstmt *s, const void *var) { return s->kind == KST_DECL && s->var == *(const int *)var; }

/* Whether s, or a statement nested in it, declares var. */
static int declares(const kstmt *s, int var) { return kst_any(s, declares_var, NULL, &var); }

/* The statements of a loop's body or of a block, in order. */
static int stmts_of(const kstmt *s, const kstmt ***out) {
  if (s && s->kind == KST_BLOCK && !s->text) {
    *out = (const kstmt **)s->body;
    return s->nbody;
  }
  static const kstmt *one[1];
  *out = one;
  one[0] = s;
  return s ? 1 : 0;
}

/* Whether s holds a statement of a kind in `what` (a mask of 1 << kstmt_kind) that leaves
 * the loop s is in: a return anywhere, a break or continue outside inner loops (in_inner:
 * s is in one already). */
static int exits(const kstmt *s, unsigned what, int in_inner) {
  if (!s)
    return 0;
  if ((what >> s->kind & 1u) && (s->kind == KST_RETURN || !in_inner))
    return 1;
  int inner = in_inner || s->kind == KST_FOR || s->kind == KST_WHILE;
  for (int i = 0; i < s->nbody; i++)
    if (exits(s->body[i], what, inner))
      return 1;
  return exits(s->then, what, inner) || exits(s->orelse, what, inner);
}

/* Whether s returns, or breaks out of the loop it is in (inner loops' own breaks aside). */
static int leaves(const kstmt *s, int in_inner) {
  return exits(s, 1u << KST_RETURN | 1u << KST_BREAK, in_inner);
}

/* The number of times s's expressions name var. */
static int kx_count(const kexpr *e, int var) {
  if (!e)
    return 0;
  int n = e->kind == KE_VAR && e->var == var;
  n += kx_count(e->a, var) + kx_count(e->b, var) + kx_count(e->c, var);
  for (int i = 0; i < e->nargs; i++)
    n += kx_count(e->args[i], var);
  return n;
}

static int kst_count(const kstmt *s, int var) {
  if (!s)
    return 0;
  int n = kx_count(s->value, var) + kx_count(s->index, var) + kx_count(s->cond, var);
  n += kst_count(s->init, var) + kst_count(s->step, var) + kst_count(s->then, var) + kst_count(s->orelse, var);
  for (int i = 0; i < s->nbody; i++)
    n += kst_count(s->body[i], var);
  return n;
}

static const char *max_min_fn(const kexpr *x) {
  static const char *const fns[] = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};
  if (x->kind != KE_CALL || x->nargs != 2)
    return NULL;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(x->text, fns[i]))
      return fns[i];
  return NULL;
}

/* Whether every assignment of var in s is an update of a reduction by op ("+" or a max/min
 * function); *uses counts the reads of var those updates make. */
static int same_expr(const kkernel *k, const kexpr *a, const kexpr *b) {
  strbuf x = {0}, y = {0};
  print_expr(k, a, &x);
  print_expr(k, b, &y);
  int same = x.s && y.s && !strcmp(x.s, y.s);
  sb_free(&x);
  sb_free(&y);
  return same;
}

/* `if (e > v) v = e;` (or <, >=, <=, either way round, no else): a max or min of var. */
static const char *if_max_min(const kkernel *k, const kstmt *s, int var) {
  if (s->kind != KST_IF || s->orelse || !s->cond)
    return NULL;
  const kstmt **b;
  const kstmt *then = s->then;
  if (then && then->kind == KST_BLOCK && !then->text && then->nbody == 1)
    then = then->body[0];
  (void)b;
  if (!then || then->kind != KST_ASSIGN || then->var != var || then->op >= 0 || then->member || !then->value)
    return NULL;
  const kexpr *c = kx_strip(s->cond);
  if (c->kind != KE_BINARY || (c->op != KO_LT && c->op != KO_GT && c->op != KO_LE && c->op != KO_GE))
    return NULL;
  int greater = c->op == KO_GT || c->op == KO_GE;
  const kexpr *e;
  if (kx_is_var(c->b, var))
    e = c->a; /* e > v: a max */
  else if (kx_is_var(c->a, var)) {
    e = c->b; /* v < e: a max */
    greater = !greater;
  } else
    return NULL;
  if (kx_count(e, var) || !same_expr(k, e, then->value))
    return NULL;
  ktype t = k->vars[var].type;
  if (t == KT_F32)
    return greater ? "fmaxf" : "fminf";
  if (t == KT_F64)
    return greater ? "fmax" : "fmin";
  return greater ? "max" : "min";
}

static int updates_only(const kkernel *k, const kstmt *s, int var, const char **op, int *uses) {
  if (!s)
    return 1;
  const char *m = kst_assigns(s, var) ? if_max_min(k, s, var) : NULL;
  if (m) {
    if (*op && strcmp(*op, m))
      return 0;
    *op = m;
    *uses += 1; /* the condition names it */
    return 1;
  }
  if (s->kind == KST_ASSIGN && s->var == var) {
    if (s->member)
      return 0;
    const char *o = NULL;
    if (s->op == KO_ADD || s->op == KO_SUB) {
      o = "+";
    } else if (s->op < 0 && s->value) {
      const kexpr *x = kx_strip(s->value);
      if (x->kind == KE_BINARY && x->op == KO_ADD && (kx_is_var(x->a, var) || kx_is_var(x->b, var)))
        o = "+";
      else if (max_min_fn(x) && (kx_is_var(x->args[0], var) || kx_is_var(x->args[1], var)))
        o = max_min_fn(x);
      *uses += 1;
    }
    if (!o || (*op && strcmp(*op, o)) || kx_count(s->value, var) != (s->op < 0))
      return 0;
    *op = o;
    return 1;
  }
  if (!updates_only(k, s->init, var, op, uses) || !updates_only(k, s->step, var, op, uses) ||
      !updates_only(k, s->then, var, op, uses) || !updates_only(k, s->orelse, var, op, uses))
    return 0;
  for (int i = 0; i < s->nbody; i++)
    if (!updates_only(k, s->body[i], var, op, uses))
      return 0;
  return 1;
}

/* Whether loop L has its own variable and a constant positive step. */
static const char *own_loop(const plan *p, const kstmt *L) {
  if (L->kind != KST_FOR || L->loop_var < 0)
    return "is not a canonical loop (for (int i = lo; i < hi; i += c))";
  if (!L->init || L->init->kind != KST_DECL)
    return "does not declare its variable in its header";
  if (kst_assigns(L->then, L->loop_var))
    return "assigns its variable in its body";
  const kexpr *st = kx_strip(L->stride);
  if (!st || st->kind != KE_INT || st->ival < 1)
    return "does not step by a positive constant";
  if (leaves(L->then, 0))
    return "returns or breaks";
  (void)p;
  return NULL;
}

static int loads_param(const kexpr *e, int param) {
  if (!e)
    return 0;
  if ((e->kind == KE_LOAD || e->kind == KE_ADDR) && e->param == param)
    return 1;
  if (loads_param(e->a, param) || loads_param(e->b, param) || loads_param(e->c, param))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (loads_param(e->args[i], param))
      return 1;
  return 0;
}

/* Whether s only adds to (or subtracts from) param, never reads it otherwise; *n counts
 * the updates. */
static int adds_only(const kstmt *s, int param, int *n) {
  if (!s)
    return 1;
  if (loads_param(s->value, param) || loads_param(s->index, param) || loads_param(s->cond, param))
    return 0;
  if ((s->kind == KST_STORE || s->kind == KST_ATOMIC) && s->param == param) {
    if (s->kind != KST_STORE || s->array_var >= 0 || (s->op != KO_ADD && s->op != KO_SUB))
      return 0;
    ++*n;
  }
  if (!adds_only(s->init, param, n) || !adds_only(s->step, param, n) || !adds_only(s->then, param, n) ||
      !adds_only(s->orelse, param, n))
    return 0;
  for (int i = 0; i < s->nbody; i++)
    if (!adds_only(s->body[i], param, n))
      return 0;
  return 1;
}

/* The integer buffers L only adds to (histograms: `hist[bin[i]] += 1`): with the additions
 * atomic, the order of the iterations changes nothing, not a bit (integer sums are exact). */
static unsigned long long histograms(const kkernel *k, const kstmt *L) {
  unsigned long long mask = 0;
  for (int i = 0; i < k->nparams && i < 64; i++) {
    ktype t = k->params[i].type;
    int n = 0;
    if (k->params[i].is_pointer && (t == KT_I32 || t == KT_U32 || t == KT_I64 || t == KT_U64) &&
        adds_only(L->then, i, &n) && n)
      mask |= 1ull << i;
  }
  return mask;
}

/* Whether L's iterations are independent, but for the accumulators it reduces into (set in
 * it->red when `reduce`). NULL when they are; else why not. */
/* An argmax: L's body the one statement `if (e > v) { v = e; w = i; }` (or <, >=, <=,
 * either way round), i L's variable, v and w named nowhere else in L. Fills it's first
 * two accumulators (v with "argmax" and its kin, w with "index"). */
static int arg_match(const plan *p, const kstmt *L, item *it) {
  const kkernel *k = p->k;
  const kstmt **b;
  if (stmts_of(L->then, &b) != 1 || b[0]->kind != KST_IF || b[0]->orelse || !b[0]->cond)
    return 0;
  const kstmt *s = b[0], **t;
  if (stmts_of(s->then, &t) != 2)
    return 0;
  const kstmt *sv = t[0], *sw = t[1];
  if (sv->kind != KST_ASSIGN || sw->kind != KST_ASSIGN || sv->op >= 0 || sw->op >= 0 || sv->member || sw->member)
    return 0;
  if (!kx_is_var(sw->value, L->loop_var)) {
    const kstmt *x = sv;
    sv = sw;
    sw = x;
  }
  int v = sv->var, w = sw->var;
  if (v == w || !kx_is_var(sw->value, L->loop_var))
    return 0;
  const kexpr *c = kx_strip(s->cond);
  if (c->kind != KE_BINARY || (c->op != KO_LT && c->op != KO_GT && c->op != KO_LE && c->op != KO_GE))
    return 0;
  int greater = c->op == KO_GT || c->op == KO_GE, strict = c->op == KO_GT || c->op == KO_LT;
  const kexpr *e;
  if (kx_is_var(c->b, v))
    e = c->a;
  else if (kx_is_var(c->a, v)) {
    e = c->b;
    greater = !greater;
  } else
    return 0;
  ktype tv = k->vars[v].type, tw = k->vars[w].type;
  if (kx_count(e, v) || kx_count(e, w) || !same_expr(k, e, sv->value) || kst_count(L->then, v) != 1 ||
      kst_count(L->then, w) != 0 || (tv != KT_F32 && tv != KT_F64 && tv != KT_I32 && tv != KT_I64) ||
      (tw != KT_I32 && tw != KT_I64) || is_host_loop_var(&p->host, v) || is_host_loop_var(&p->host, w))
    return 0;
  static const char *const ops[2][2] = {{"argmin_last", "argmin"}, {"argmax_last", "argmax"}};
  it->red[0] = v;
  it->red_op[0] = ops[greater][strict];
  it->red[1] = w;
  it->red_op[1] = "index";
  it->nred = 2;
  return 1;
}

static const char *independent(plan *p, const kstmt *L, int reduce, item *it) {
  const kkernel *k = p->k;
  const char *why = own_loop(p, L);
  if (why)
    return why;
  if (reduce)
    arg_match(p, L, it);
  for (int v = 0; v < k->nvars; v++) {
    int taken = 0;
    for (int r = 0; r < it->nred; r++)
      taken |= it->red[r] == v;
    if (v == L->loop_var || !kst_names(L, v) || declares(L->then, v) || taken)
      continue;
    if (k->vars[v].kind == KV_LOCAL_ARRAY || k->vars[v].kind == KV_SHARED)
      return arena_printf(p->m->arena, "uses the array '%s' declared outside it", k->vars[v].name);
    if (!kst_assigns(L->then, v))
      continue; /* a value the loop reads */
    const char *op = NULL;
    int uses = 0;
    ktype t = k->vars[v].type;
    if (reduce && it->nred < MAX_RED && updates_only(k, L->then, v, &op, &uses) && op &&
        kst_count(L->then, v) == uses && (t == KT_F32 || t == KT_F64 || t == KT_I32 || t == KT_I64) &&
        !is_host_loop_var(&p->host, v)) {
      it->red[it->nred] = v;
      it->red_op[it->nred++] = op;
      continue;
    }
    return arena_printf(p->m->arena, "assigns '%s' (declared outside it) in one iteration for the next", k->vars[v].name);
  }
  dep_query q = {p->m, k, L, 0, p->around, origin_of(p, p->around ? p->around : L)};
  const char *dep = dep_carried(&q);
  if (dep && !q.around && (q.skip = histograms(k, L)) && !dep_carried(&q)) {
    it->atomic = q.skip;
    return NULL;
  }
  return dep;
}

/* Whether e is y[i - 1]: a load of param y one before loop variable i. */
static int is_previous(const kexpr *e, int y, int i) {
  e = kx_strip(e);
  if (e->kind != KE_LOAD || e->param != y || e->var >= 0)
    return 0;
  const kexpr *x = kx_strip(e->a);
  return x->kind == KE_BINARY && x->op == KO_SUB && kx_is_var(x->a, i) && kx_strip(x->b)->kind == KE_INT &&
         kx_strip(x->b)->ival == 1;
}

/* Whether L is a scan: its body the one statement y[i] = y[i - 1] op g (or g op y[i - 1]),
 * op + or a max/min function, g reading no y and assigning nothing, i stepping by 1 from
 * bounds the host evaluates. Fills it. */
static const char *scan_match(plan *p, const kstmt *L, item *it) {
  const kkernel *k = p->k;
  const kstmt **b;
  if (own_loop(p, L) || kx_strip(L->stride)->ival != 1 || stmts_of(L->then, &b) != 1)
    return "is not a scan";
  const kstmt *st = b[0];
  if (st->kind != KST_STORE || st->param < 0 || st->array_var >= 0 || st->op >= 0 ||
      !kx_is_var(st->index, L->loop_var) || !st->value)
    return "is not a scan";
  ktype t = k->params[st->param].type;
  if (t != KT_F32 && t != KT_F64 && t != KT_I32 && t != KT_I64)
    return "is not a scan";
  const kexpr *v = kx_strip(st->value), *g = NULL;
  const char *op = NULL;
  if (v->kind == KE_BINARY && v->op == KO_ADD) {
    op = "+";
    g = is_previous(v->a, st->param, L->loop_var) ? v->b : is_previous(v->b, st->param, L->loop_var) ? v->a : NULL;
  } else if ((op = max_min_fn(v)) != NULL) {
    g = is_previous(v->args[0], st->param, L->loop_var) ? v->args[1]
        : is_previous(v->args[1], st->param, L->loop_var) ? v->args[0] : NULL;
  }
  if (!g || loads_param(g, st->param))
    return "is not a scan";
  if (!host_expr(p->k, &p->host, L->lo) || !host_expr(p->k, &p->host, L->hi))
    return "is a scan whose bounds the host cannot evaluate";
  it->scan_store = st;
  it->scan_term = g;
  it->scan_op = op;
  return NULL;
}

/* ---- the plan ---- */

static void plan_list(plan *p, const kstmt *const *s, int n, item **items, int *nitems);

/* Whether loop L's bounds or step name variable var. */
static int mentions_loop(const kstmt *L, int var) {
  return kx_count(L->lo, var) || kx_count(L->hi, var) || kx_count(L->stride, var);
}

/* The loop perfectly nested in L (its body's one statement), or NULL. */
static const kstmt *only_loop(const kstmt *L) {
  const kstmt **b;
  int n = stmts_of(L->then, &b);
  return n == 1 && b[0]->kind == KST_FOR ? b[0] : NULL;
}

static int recomputable(const kkernel *k, const kstmt *L, const unsigned char *copied, const kexpr *e);

/* The loop nested in L after declarations only (`int row = (r * nq + q) * np; for (p...)`),
 * or NULL: each declaration's variable assigned only there, from values L's body does not
 * change (no load or call). Adds the declarations to it->pre, at level `level` (L's place in
 * the band): each thread makes them after L's header, where they were, so that they name
 * and are named by what they were, for each of its iterations of the loops inside. */
static const kstmt *band_loop(const plan *p, const kstmt *L, int level, item *it) {
  const kstmt **b;
  int n = stmts_of(L->then, &b);
  if (n < 1 || b[n - 1]->kind != KST_FOR || n - 1 + it->npre > 4)
    return NULL;
  const kstmt *in = b[n - 1];
  for (int i = 0; i < n - 1; i++) {
    const kstmt *d = b[i];
    if (d->kind != KST_DECL || !d->value || p->k->vars[d->var].kind != KV_LOCAL ||
        kst_count_assigns(L->then, d->var) != 1 || !recomputable(p->k, L, NULL, d->value))
      return NULL;
  }
  for (int i = 0; i < n - 1; i++) {
    it->pre_level[it->npre] = level;
    it->pre[it->npre++] = b[i];
  }
  return in;
}

static void note_refusal(plan *p, const kstmt *L, const char *why) {
  if (p->nrefused < 32) {
    p->refused[p->nrefused] = L;
    p->refused_why[p->nrefused++] = why;
  }
  if (!p->why)
    p->why = arena_printf(p->m->arena, "the loop over '%s' (line %u) %s",
                          L->loop_var >= 0 ? p->k->vars[L->loop_var].name : "?", model_line(p->m, L->pos), why);
}

static item *push(plan *p, item **items, int *nitems) {
  if (*nitems == MAX_ITEMS) {
    p->fail = "has too many statements at its top level";
    return &(*items)[*nitems - 1];
  }
  item *it = &(*items)[(*nitems)++];
  memset(it, 0, sizeof *it);
  return it;
}

static void serial(plan *p, const kstmt *s, item **items, int *nitems) {
  item *it = *nitems ? &(*items)[*nitems - 1] : NULL;
  if (!it || it->kind != IT_SERIAL) {
    it = push(p, items, nitems);
    it->kind = IT_SERIAL;
    it->stmts = arena_alloc(p->m->arena, sizeof(kstmt *) * MAX_STMTS);
  }
  if (it->nstmts < MAX_STMTS)
    it->stmts[it->nstmts++] = s;
  else
    p->fail = "has too many statements at its top level";
}

/* ---- loop distribution ---- */

typedef struct again_ctx {
  const kkernel *k;
  const kstmt *L;
  const unsigned char *copied;
} again_ctx;

static int again_var(const void *ctx, int var) {
  const again_ctx *c = ctx;
  kvar_kind kind = c->k->vars[var].kind;
  return (kind == KV_LOCAL || kind == KV_LOOP) &&
         (var == c->L->loop_var || (c->copied && c->copied[var]) || !kst_assigns(c->L->then, var));
}

/* Whether e can be evaluated again in each part of loop L: arithmetic on literals, the
 * kernel's scalars, L's variable, values L does not assign and the locals in `copied`; no
 * load or call. */
static int recomputable(const kkernel *k, const kstmt *L, const unsigned char *copied, const kexpr *e) {
  again_ctx c = {k, L, copied};
  return arith_of(k, e, 1, again_var, &c);
}

/* Whether s is a declaration statement (`float a = 0, b = 0;` is a block of them) that
 * declares var (any variable: var < 0). */
static int is_decl_of(const kstmt *s, int var) {
  if (s->kind == KST_DECL)
    return var < 0 || s->var == var;
  if (s->kind != KST_BLOCK || !s->text)
    return 0;
  for (int i = 0; i < s->nbody; i++)
    if (s->body[i]->kind == KST_DECL && (var < 0 || s->body[i]->var == var))
      return 1;
  return 0;
}

/* Whether s holds a `continue` of the loop it is in (inner loops' own aside): a part
 * without it would not skip what it skips. */
static int continues(const kstmt *s) { return exits(s, 1u << KST_CONTINUE, 0); }

/* Whether L's bounds read no buffer and nothing L's body assigns: each part of L, evaluating
 * them again after the parts before it ran, gets the same iterations. */
static int fixed_bounds(const plan *p, const kstmt *L) {
  return recomputable(p->k, L, NULL, L->lo) && recomputable(p->k, L, NULL, L->hi) &&
         recomputable(p->k, L, NULL, L->stride);
}

static int find_root(int *up, int i) {
  while (up[i] != i)
    i = up[i] = up[up[i]];
  return i;
}

/* A copy of loop L whose body is the n statements s, or NULL when the plan has no room to
 * note it. */
static const kstmt *loop_of(plan *p, const kstmt *L, const kstmt *const *s, int n) {
  arena *a = p->m->arena;
  kstmt *b = arena_alloc(a, sizeof *b);
  memset(b, 0, sizeof *b);
  b->kind = KST_BLOCK;
  b->var = b->param = b->array_var = b->access = b->loop_var = b->op = -1;
  b->pos = L->then ? L->then->pos : L->pos;
  b->body = arena_alloc(a, sizeof(kstmt *) * (size_t)n);
  memcpy(b->body, s, sizeof(kstmt *) * (size_t)n);
  b->nbody = b->cap_body = n;
  kstmt *c = arena_alloc(a, sizeof *c);
  *c = *L;
  c->then = b;
  c->reductions = NULL;
  c->nreductions = c->cap_reductions = 0;
  if (p->ncopies == MAX_COPIES)
    return NULL; /* no room to say where it stands */
  p->copy[p->ncopies] = c;
  p->origin[p->ncopies++] = origin_of(p, L);
  return c;
}

/* Loop L distributed (Allen-Kennedy style, in the statements' order): its body's statements
 * (and those of a canonical loop in it, split first when `depth` allows) grouped so that
 * statements sharing a variable that L changes stay together, each group a copy of L in the
 * order of its first statement, the declarations that can be recomputed copied into every
 * group that uses them. Legal when running each group's iterations before the next group's
 * reverses no access pair's order (dep.h's dep_reversed, by isl). Fills part (MAX_PIECES)
 * and returns how many (at least 2), or 0 when L stays one loop. */
static int distribute(plan *p, const kstmt *L, int depth, const kstmt **part) {
  const kkernel *k = p->k;
  if (own_loop(p, L) || continues(L->then) || !fixed_bounds(p, L))
    return 0;
  const kstmt **b;
  int n = stmts_of(L->then, &b);
  if (n < 1 || n > MAX_PIECES)
    return 0;
  const kstmt *body[MAX_PIECES], *piece[MAX_PIECES];
  memcpy(body, b, sizeof(kstmt *) * (size_t)n); /* stmts_of's one-element array is reused */
  int np = 0;
  for (int i = 0; i < n; i++) {
    const kstmt *sub[MAX_PIECES];
    int ns = depth < 1 && body[i]->kind == KST_FOR ? distribute(p, body[i], depth + 1, sub) : 0;
    if (ns < 2 || np + ns > MAX_PIECES) {
      sub[0] = body[i];
      ns = 1;
    }
    if (np + ns > MAX_PIECES)
      return 0;
    for (int j = 0; j < ns; j++)
      piece[np++] = sub[j];
  }
  if (np < 2)
    return 0;
  /* the groups: pieces that share a variable L changes, or an array */
  int up[MAX_PIECES];
  if (!p->copied)
    p->copied = arena_alloc(p->m->arena, (size_t)k->nvars + 1);
  unsigned char *copied = p->copied;
  memset(copied, 0, (size_t)k->nvars + 1);
  int copy_piece[MAX_PIECES] = {0};
  for (int i = 0; i < np; i++)
    up[i] = i;
  for (int v = 0; v < k->nvars; v++) {
    if (v == L->loop_var)
      continue;
    int user[MAX_PIECES], nu = 0, decl = -1;
    for (int i = 0; i < np; i++) {
      int is_decl = is_decl_of(piece[i], v);
      if (is_decl)
        decl = i;
      if (is_decl || (kst_names(piece[i], v) && !declares(piece[i], v)))
        user[nu++] = i;
    }
    if (nu < 2)
      continue;
    kvar_kind kind = k->vars[v].kind;
    if (kind == KV_LOCAL || kind == KV_LOOP) {
      int assigned = kst_count_assigns(L->then, v);
      if (!assigned)
        continue; /* a value L only reads */
      if (assigned == 1 && decl >= 0 && piece[decl]->kind == KST_DECL && piece[decl]->value &&
          recomputable(k, L, copied, piece[decl]->value)) {
        copied[v] = 1; /* declared once from values every part has: each part declares it */
        copy_piece[decl] = 1;
        continue;
      }
    }
    for (int i = 1; i < nu; i++)
      up[find_root(up, user[i])] = find_root(up, user[0]);
  }
  /* the groups in the order of their first piece; a group of declarations alone is dropped
   * (nothing it computes is used elsewhere, and declaring has no effect) */
  int root[MAX_PIECES], ng = 0, gof[MAX_PIECES];
  for (int i = 0; i < np; i++) {
    gof[i] = -1;
    if (copy_piece[i])
      continue;
    int r = find_root(up, i), g = 0;
    while (g < ng && root[g] != r)
      g++;
    if (g == ng)
      root[ng++] = r;
    gof[i] = g;
  }
  if (ng < 2)
    return 0;
  const kstmt *mem[MAX_PIECES][MAX_PIECES];
  int nmem[MAX_PIECES] = {0}, first[MAX_PIECES], last[MAX_PIECES], effect[MAX_PIECES] = {0};
  for (int i = 0; i < np; i++) {
    int g = gof[i];
    if (g < 0)
      continue;
    if (!nmem[g])
      first[g] = i;
    last[g] = i;
    mem[g][nmem[g]++] = piece[i];
    effect[g] |= !is_decl_of(piece[i], -1) && !(piece[i]->kind == KST_BLOCK && !piece[i]->nbody);
  }
  /* legal: no access pair of two groups whose order the distribution reverses */
  dep_query q = {p->m, k, L, 0, NULL, origin_of(p, L)};
  for (int x = 0; x < ng; x++)
    for (int y = x + 1; y < ng; y++)
      if (dep_reversed(&q, mem[x], nmem[x], mem[y], nmem[y], last[x] > first[y]))
        return 0;
  int nparts = 0;
  for (int g = 0; g < ng; g++) {
    if (!effect[g])
      continue;
    /* the copied declarations it needs (and those they need), then its pieces, in order */
    unsigned char need[MAX_PIECES] = {0};
    for (int changed = 1; changed;) {
      changed = 0;
      for (int i = 0; i < np; i++) {
        if (!copy_piece[i] || need[i])
          continue;
        int used = 0;
        for (int j = 0; j < np && !used; j++)
          used = (gof[j] == g || (copy_piece[j] && need[j])) && j != i && kst_names(piece[j], piece[i]->var);
        if (used)
          need[i] = changed = 1;
      }
    }
    const kstmt *s[MAX_PIECES];
    int ns = 0;
    for (int i = 0; i < np; i++)
      if (gof[i] == g || need[i])
        s[ns++] = piece[i];
    if (!(part[nparts++] = loop_of(p, L, s, ns)))
      return 0;
  }
  return nparts >= 2 ? nparts : 0;
}

static void plan_stmt(plan *p, const kstmt *s, item **items, int *nitems);

/* Loop s distributed (distribute()), each part planned as a loop of its own; the parts'
 * items added to items when some part is parallel and, with band > 0, every part is a grid
 * of at least band loops and one deeper. 0 when s stays as it is (the plan as it was). */
static int plan_parts(plan *p, const kstmt *s, int band, item **items, int *nitems) {
  const kstmt *part[MAX_PIECES];
  int nparts = distribute(p, s, 0, part);
  if (!nparts)
    return 0;
  plan saved = *p;
  item sub[MAX_ITEMS];
  item *subp = sub;
  int nsub = 0, keep = 1, deeper = 0;
  for (int i = 0; i < nparts && !p->fail; i++)
    plan_stmt(p, part[i], &subp, &nsub);
  for (int i = 0; band && i < nsub; i++) {
    keep &= sub[i].kind == IT_PAR && !sub[i].inner && sub[i].nband >= band;
    deeper |= sub[i].nband > band;
  }
  keep &= !band || deeper;
  if (p->fail || !keep || p->nparallel == saved.nparallel || *nitems + nsub > MAX_ITEMS) {
    *p = saved;
    return 0;
  }
  for (int i = 0; i < nsub; i++) {
    item *it = push(p, items, nitems);
    *it = sub[i];
    it->part_of = s;
  }
  return 1;
}

/* Whether L and the loop J its body ends with (after declarations: band_loop()) can run as
 * a wavefront (nussinov, a Gauss-Seidel sweep): J's iterations under each of L's in fronts of
 * s * L's variable + J's (s = 1, else 2), each front a launch of a grid over L, J's variable
 * computed from the front. Needs: J stepping by 1; its bounds linear in L's variable, which
 * the host evaluates (for the fronts' range); no variable from outside L assigned in it; no
 * break or return; and dep_fronts() (isl): no access pair whose order the fronts reverse.
 * Fills it; NULL when it holds, else why. */
static const char *wave_match(plan *p, const kstmt *L, item *it) {
  const kkernel *k = p->k;
  const char *why = own_loop(p, L);
  if (why)
    return why;
  item probe = {0};
  const kstmt *J = band_loop(p, L, 0, &probe);
  if (!J || own_loop(p, J) || kx_strip(J->stride)->ival != 1 || mentions_loop(L, J->loop_var))
    return "is not a loop nest that can run in fronts";
  if (!host_expr(k, &p->host, L->lo) || !host_expr(k, &p->host, L->hi))
    return "has bounds the host cannot evaluate";
  p->host.loop[p->host.n++] = L;
  int host = host_expr(k, &p->host, J->lo) && host_expr(k, &p->host, J->hi);
  p->host.n--;
  if (!host || !linear_in_band(k, J->lo, &L, 1) || !linear_in_band(k, J->hi, &L, 1))
    return "has an inner loop whose bounds are not linear in its variable";
  for (int v = 0; v < k->nvars; v++) {
    if (v == L->loop_var || !kst_names(L, v) || declares(L->then, v))
      continue;
    if (k->vars[v].kind == KV_LOCAL_ARRAY || k->vars[v].kind == KV_SHARED)
      return arena_printf(p->m->arena, "uses the array '%s' declared outside it", k->vars[v].name);
    if (kst_assigns(L->then, v))
      return arena_printf(p->m->arena, "assigns '%s' (declared outside it)", k->vars[v].name);
  }
  dep_query q = {p->m, k, L, 0, NULL, origin_of(p, L)};
  for (int s = 1; s <= 2; s++) {
    why = dep_fronts(&q, J, s);
    if (!why) {
      *it = probe;
      it->kind = IT_WAVE;
      it->loop = L;
      it->band[0] = L;
      it->band[1] = J;
      it->nband = 2;
      it->front_s = s;
      return NULL;
    }
  }
  return why;
}

static void plan_stmt(plan *p, const kstmt *s, item **items, int *nitems) {
  if (s->kind == KST_BLOCK && !s->text) {
    plan_list(p, (const kstmt *const *)s->body, s->nbody, items, nitems);
    return;
  }
  if (s->kind == KST_DECL && (p->k->vars[s->var].kind == KV_LOCAL_ARRAY || p->k->vars[s->var].kind == KV_SHARED))
    p->fail = arena_printf(p->m->arena, "declares the array '%s' at its top level", p->k->vars[s->var].name);
  if (s->kind != KST_FOR) {
    serial(p, s, items, nitems);
    return;
  }
  item probe = {0};
  const char *why = independent(p, s, 0, &probe);
  if (!why) {
    item cand = {0};
    cand.kind = IT_PAR;
    cand.loop = s;
    cand.band[cand.nband++] = s;
    cand.atomic = probe.atomic;
    item pre = {0};
    for (const kstmt *in = cand.atomic ? NULL : band_loop(p, s, 0, &pre); in && cand.nband < 3;
         in = band_loop(p, in, cand.nband - 1, &pre)) {
      item inner = {0};
      if (independent(p, in, 0, &inner) || inner.atomic)
        break;
      cand.band[cand.nband++] = in;
      memcpy(cand.pre, pre.pre, sizeof cand.pre); /* the declarations up to this loop */
      memcpy(cand.pre_level, pre.pre_level, sizeof cand.pre_level);
      cand.npre = pre.npre;
    }
    /* distributed, where a part is a deeper grid and none shallower (doitgen's two p loops
     * under r and q; correlation's triangle of b under a, apart from its diagonal) */
    if (cand.nband < 3 && !cand.atomic && plan_parts(p, s, cand.nband, items, nitems))
      return;
    *push(p, items, nitems) = cand;
    p->nparallel++;
    return;
  }
  memset(&probe, 0, sizeof probe);
  if (!independent(p, s, 1, &probe) && probe.nred) {
    item *it = push(p, items, nitems);
    *it = probe;
    it->kind = IT_RED;
    it->loop = s;
    p->nparallel++;
    return;
  }
  memset(&probe, 0, sizeof probe);
  if (!scan_match(p, s, &probe)) {
    item *it = push(p, items, nitems);
    *it = probe;
    it->kind = IT_SCAN;
    it->loop = s;
    p->nparallel++;
    return;
  }
  /* the loop nested in it independent, s's iterations run by each thread inside it (the
   * two interchanged: one launch rather than one per iteration of s) */
  const kstmt *in = own_loop(p, s) ? NULL : only_loop(s);
  if (in && !mentions_loop(in, s->loop_var)) {
    item inner = {0};
    p->around = s;
    const char *w = independent(p, in, 0, &inner);
    p->around = NULL;
    if (!w) {
      item *it = push(p, items, nitems);
      it->kind = IT_PAR;
      it->loop = in;
      it->band[it->nband++] = in;
      it->inner = s;
      p->nparallel++;
      return;
    }
  }
  /* the loop distributed, each part planned as a loop of its own: kept where a part is
   * parallel */
  if (plan_parts(p, s, 0, items, nitems))
    return;
  int nrefused = p->nrefused;
  const char *first_why = p->why;
  note_refusal(p, s, why);
  /* a loop the host can run: its items may be parallel */
  if (!own_loop(p, s) && p->host.n < MAX_HOST && host_expr(p->k, &p->host, s->lo) && host_expr(p->k, &p->host, s->hi)) {
    item sub[MAX_ITEMS];
    item *subp = sub;
    int nsub = 0, before = p->nparallel;
    p->host.loop[p->host.n++] = s;
    const kstmt **b;
    int n = stmts_of(s->then, &b);
    plan_list(p, b, n, &subp, &nsub);
    p->host.n--;
    if (p->nparallel > before) {
      item *it = push(p, items, nitems);
      it->kind = IT_LOOP;
      it->loop = s;
      it->body = arena_alloc(p->m->arena, sizeof(item) * (size_t)(nsub ? nsub : 1));
      memcpy(it->body, sub, sizeof(item) * (size_t)nsub);
      it->nbody = nsub;
      return;
    }
  }
  /* else the nest in fronts (a wavefront): more launches than a host loop over s, each with
   * less work, so only where that has nothing parallel */
  memset(&probe, 0, sizeof probe);
  if (!p->fail && !wave_match(p, s, &probe)) {
    p->nrefused = nrefused; /* s and the loops in it are not kept serial after all */
    p->why = first_why;
    *push(p, items, nitems) = probe;
    p->nparallel++;
    return;
  }
  serial(p, s, items, nitems);
}

static void plan_list(plan *p, const kstmt *const *s, int n, item **items, int *nitems) {
  const kstmt *copy[MAX_STMTS];
  if (n > MAX_STMTS) {
    p->fail = "has too many statements at its top level";
    return;
  }
  if (n) /* an empty block (`;`) has no array */
    memcpy(copy, s, sizeof(kstmt *) * (size_t)n); /* stmts_of's one-element array is reused */
  for (int i = 0; i < n && !p->fail; i++)
    plan_stmt(p, copy[i], items, nitems);
}

/* ---- the site ---- */

static int is_one(const char *s) {
  if (!s)
    return 0;
  while (*s == ' ')
    s++;
  if (!strncmp(s, "dim3", 4)) {
    s += 4;
    while (*s == ' ')
      s++;
    if (*s++ != '(')
      return 0;
    int ones = 0;
    for (; *s && *s != ')'; s++)
      if (*s == '1')
        ones++;
      else if (*s != ' ' && *s != ',')
        return 0;
    return ones >= 1 && *s == ')';
  }
  if (*s != '1')
    return 0;
  for (s++; *s; s++)
    if (*s != ' ' && *s != 'u' && *s != 'U')
      return 0;
  return 1;
}

/* The plan match made last (find's remarks read it). */
static plan last_plan;
static item last_items[MAX_ITEMS];
static int last_n;

static const char *match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **kp, int *quiet) {
  (void)e;
  *quiet = 1;
  memset(&last_plan, 0, sizeof last_plan);
  last_n = 0;
  if (st->kernel < 0 || !is_one(st->grid) || !is_one(st->block))
    return "is not a one-thread launch";
  const kkernel *k = &m->kernels[st->kernel];
  *kp = k;
  *quiet = 0;
  if (!k->body)
    return arena_printf(m->arena, "is not lifted: %s", k->opaque_why ? k->opaque_why : "opaque");
  if (k->is_template || k->instance)
    return "is a template";
  if (k->uses_shared || k->uses_sync || k->uses_atomics || k->uses_warp || k->ntindex ||
      kst_uses_builtins(k->body, ~0u))
    return "names a thread index, shared memory, a barrier or an atomic: it is parallel already";
  if (leaves(k->body, 1))
    return "returns early: the statements after the return would run in launches of their own";
  for (int i = 0; i < k->nparams; i++) {
    if (!k->params[i].is_pointer)
      continue;
    const karg *a = &st->args[i];
    if ((a->ref != KREF_PARAM && a->ref != KREF_SCRATCH) || a->offset)
      return arena_printf(m->arena, "takes '%s', which is not a whole buffer of the entry", a->text);
    for (int j = 0; j < i; j++)
      if (k->params[j].is_pointer && st->args[j].ref == a->ref && st->args[j].buffer == a->buffer)
        return arena_printf(m->arena, "takes one buffer twice ('%s')", a->text);
  }
  plan *p = &last_plan;
  memset(p, 0, sizeof *p);
  p->m = m;
  p->k = k;
  last_n = 0;
  item *ip = last_items;
  plan_stmt(p, k->body, &ip, &last_n);
  if (p->fail)
    return p->fail;
  if (!p->nparallel)
    return p->why ? arena_printf(m->arena, "has no parallel loop: %s", p->why) : "has no loop";
  return NULL;
}

/* Remarks on each loop of the last plan: made parallel (-Rpass) or kept serial, and why
 * (-Rpass-missed). */
static void remark_items(const kmodel *m, const item *items, int n, diag *d) {
  static const char *const kinds[] = {"", "a grid", "a reduction", "a scan", "a host loop of launches"};
  for (int i = 0; i < n; i++) {
    const item *it = &items[i];
    unsigned line, col;
    if (it->part_of && (i == 0 || items[i - 1].part_of != it->part_of)) {
      int parts = 1;
      while (i + parts < n && items[i + parts].part_of == it->part_of)
        parts++;
      model_linecol(m, it->part_of->pos, &line, &col);
      diag_report(d, DIAG_REMARK, m->path, line, col,
                  "distributed: the loop over '%s' into loops of their own, run one after another (%d items) "
                  "[-Rpass=parallelize]",
                  last_plan.k->vars[it->part_of->loop_var].name, parts);
    }
    if (it->kind == IT_SERIAL)
      continue;
    model_linecol(m, it->loop->pos, &line, &col);
    if (it->kind == IT_PAR && it->inner) {
      model_linecol(m, it->inner->pos, &line, &col);
      diag_report(d, DIAG_REMARK, m->path, line, col,
                  "parallelized: the loop over '%s' as a 1-D grid, interchanged with the loop over '%s' around it, "
                  "which each thread runs [-Rpass=parallelize]",
                  last_plan.k->vars[it->loop->loop_var].name, last_plan.k->vars[it->inner->loop_var].name);
    } else if (it->kind == IT_WAVE)
      diag_report(d, DIAG_REMARK, m->path, line, col,
                  "parallelized: the loop over '%s' as a wavefront with the loop over '%s' in it (fronts of %s%s + %s, "
                  "a launch each, or one block for all where it fits) [-Rpass=parallelize]",
                  last_plan.k->vars[it->loop->loop_var].name, last_plan.k->vars[it->band[1]->loop_var].name,
                  it->front_s == 1 ? "" : "2 * ", last_plan.k->vars[it->loop->loop_var].name,
                  last_plan.k->vars[it->band[1]->loop_var].name);
    else if (it->kind == IT_PAR)
      diag_report(d, DIAG_REMARK, m->path, line, col, "parallelized: the loop over '%s' as a %d-D grid%s [-Rpass=parallelize]",
                  last_plan.k->vars[it->loop->loop_var].name, it->nband, it->atomic ? ", its additions atomic" : "");
    else if (it->kind != IT_LOOP)
      diag_report(d, DIAG_REMARK, m->path, line, col, "parallelized: the loop over '%s' as %s [-Rpass=parallelize]",
                  last_plan.k->vars[it->loop->loop_var].name, kinds[it->kind]);
    remark_items(m, it->body, it->nbody, d);
  }
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = pass_each_launch(v, "parallelize", match, sites, nsites, 0, d);
  for (int ei = 0; remarks && ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    for (int i = 0; !e->opaque_why && i < e->nsteps; i++) {
      const kstep *st = &e->steps[i];
      const kkernel *k = NULL;
      int quiet = 1;
      if (!pass_untouched_launch(v, ei, st))
        continue;
      const char *why = match(m, e, st, &k, &quiet);
      if (quiet)
        continue;
      if (why && (last_plan.fail || !last_plan.nrefused))
        diag_report(d, DIAG_REMARK, m->path, st->loc.line, st->loc.col,
                    "not parallelized: '%s' %s [-Rpass-missed=parallelize]", k->name, why);
      for (int r = 0; r < last_plan.nrefused; r++) {
        const kstmt *L = last_plan.refused[r];
        unsigned line, col;
        model_linecol(m, L->pos, &line, &col);
        diag_report(d, DIAG_REMARK, m->path, line, col, "kept serial: the loop over '%s': %s [-Rpass-missed=parallelize]",
                    L->loop_var >= 0 ? k->vars[L->loop_var].name : "?", last_plan.refused_why[r]);
      }
      if (!why)
        remark_items(m, last_items, last_n, d);
    }
  }
  return found;
}

/* fronts: where a wavefront's one block runs every front (gen_wave()): 0, where L's range
 * fits in one block's threads, else a launch a front; 1, whatever the range (each thread
 * takes several of L's iterations a front). Which is faster depends on the fronts' sizes
 * against a launch's cost, so the tuner measures both; it is the first digit, turning
 * fastest, and a site without a wavefront gives the same text for both (dropped as a
 * duplicate). */
static const int fronts_values[] = {0, 1};
/* oneblock: 1 runs a site with a host loop in one block of ONE_BLOCK threads (one_block_fits()):
 * the host loop on the device, each launch in it a call followed by a barrier. A launch
 * costs microseconds and a barrier far less, so a loop of many small steps (a solver's
 * pivot loop) gains, and one of large steps loses the rest of the GPU: the tuner measures. */
static const int oneblock_values[] = {0, 1};
static const int block_values[] = {256, 128, 512};
static const pass_param params[] = {
    {"fronts", fronts_values, 2}, {"oneblock", oneblock_values, 2}, {"block", block_values, 3}};

static int get_params(const pass_param **out) {
  *out = params;
  return 3;
}

/* ---- printing ---- */

typedef struct gen {
  variant *v;
  const kmodel *m;
  const kentry *e;
  const kstep *st;
  const kkernel *k;
  const char *base;             /* the new kernels' names start so */
  const char *fr;               /* the host's pointer to the frame: BASE_fr */
  int block;
  int fronts_any;               /* a wavefront's one block runs whatever L's range (fronts=1) */
  int one_block;                /* the site in one block (oneblock=1): kernels are __device__
                                 * functions, launches calls and barriers */
  int nwaves;                   /* the wavefronts printed */
  unsigned char *frame;         /* per variable: lives in the frame */
  int nframe;
  hostloops host;               /* the host loops around what is printed */
  int nkernels;
  strbuf kernels;               /* the definitions */
  int red_var;                  /* while printing a reduction kernel: -1 */
  int in_device;                /* printing a kernel (not the host's loop headers) */
  int frame_direct;             /* a serial kernel: the frame's declarations print as
                                 * assignments to the kernel's copies */
  unsigned long long atomic;    /* parameters whose `+=` print as atomicAdd */
  const kstmt *part_of;         /* the item being printed is a part of this loop (distributed) */
} gen;

/* A variable's type as a frame member or a copy of one: without a top-level const (a
 * pointer to const stays one). */
static const char *vtype(const gen *g, int v) {
  const char *t = g->k->vars[v].type_spelling;
  if (!strchr(t, '*'))
    return k_unconst(t);
  size_t n = strlen(t);
  if (n > 6 && !strcmp(t + n - 6, " const"))
    return arena_strndup(g->v->a, t, n - 6);
  return t;
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth);

/* Variable v's member of the frame: its name, made unique with its number where two
 * top-level variables (in two scopes) share the name. */
static const char *member(const gen *g, int v) {
  const char *name = g->k->vars[v].name;
  for (int w = 0; w < g->k->nvars; w++)
    if (w != v && g->frame[w] && !strcmp(g->k->vars[w].name, name))
      return arena_printf(g->v->a, "%s_%d", name, v);
  return name;
}

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  gen *g = ctx;
  if (!g->in_device) { /* a host loop's bound: the launch's arguments, the host loops' names */
    if (e->kind == KE_PARAM && g->one_block) { /* the block's kernel has the kernel's parameters */
      sb_printf(b, "(%s)", g->k->params[e->param].name);
      return 1;
    }
    if (e->kind == KE_PARAM) {
      const char *t = pass_arg_text(g->m, g->e, NULL, g->st, e->param);
      sb_printf(b, "(%s)", t ? t : g->st->args[e->param].text);
      return 1;
    }
    if (e->kind == KE_VAR && is_host_loop_var(&g->host, e->var)) {
      sb_printf(b, "kf_%s", g->k->vars[e->var].name);
      return 1;
    }
    if (e->kind == KE_VAR && g->k->vars[e->var].init) { /* a local the host computes again */
      sb_putc(b, '(');
      print_expr_with(g->k, &(print_hooks){stmt_hook, expr_hook, g}, g->k->vars[e->var].init, b);
      sb_putc(b, ')');
      return 1;
    }
  }
  return 0;
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  gen *g = ctx;
  print_hooks h = {stmt_hook, expr_hook, g};
  if (s->kind == KST_STORE && s->param >= 0 && s->param < 64 && (g->atomic >> s->param & 1)) {
    const kkparam *P = &g->k->params[s->param];
    int wide = P->type == KT_I64 || P->type == KT_U64;
    print_indent(b, depth);
    sb_printf(b, "atomicAdd(%s&%s[", wide ? "(unsigned long long *)" : "", P->name);
    print_expr_with(g->k, &h, s->index, b);
    sb_printf(b, "], (%s)(%s", wide ? "unsigned long long" : P->type == KT_U32 ? "unsigned int" : "int", s->op == KO_SUB ? "0 - (" : "");
    if (wide)
      sb_puts(b, "(long long)(");
    print_expr_with(g->k, &h, s->value, b);
    sb_printf(b, "%s%s));\n", wide ? ")" : "", s->op == KO_SUB ? ")" : "");
    return 1;
  }
  if (!g->frame_direct)
    return 0;
  if (s->kind == KST_BLOCK && s->text) { /* `int a = 1, b = 2;`: each its own assignment */
    for (int i = 0; i < s->nbody; i++)
      if (!stmt_hook(ctx, s->body[i], b, depth))
        print_stmt_with(g->k, &h, s->body[i], depth, b);
    return 1;
  }
  if (s->kind == KST_DECL && g->frame[s->var]) { /* declared at the kernel's top already */
    if (s->value) {
      print_indent(b, depth);
      sb_printf(b, "%s = ", g->k->vars[s->var].name);
      print_expr_with(g->k, &h, s->value, b);
      sb_puts(b, ";\n");
    }
    return 1;
  }
  return 0;
}

static void print_stmt_hooked(gen *g, const kstmt *s, int depth, strbuf *b) {
  print_hooks h = {stmt_hook, expr_hook, g};
  if (!stmt_hook(g, s, b, depth))
    print_stmt_with(g->k, &h, s, depth, b);
}

static void print_e(gen *g, const kexpr *e, strbuf *b) {
  print_hooks h = {stmt_hook, expr_hook, g};
  print_expr_with(g->k, &h, e, b);
}

/* The parameters of every new kernel: the kernel's own, the host loops' variables, the frame,
 * then extra (", T *p"). bounds is the block's size where the kernel is one block whose
 * threads pass values to each other through memory across barriers (a wavefront's one block,
 * a site's in one block), else 0. There, and in the functions of a site in one block, no
 * pointer is __restrict__: nvcc may then load restrict-qualified memory before the barrier
 * after which another thread's store is to be seen (it did in gramschmidt's rkk, read from the
 * frame before thread 0 had written it). */
static void kernel_head(gen *g, const char *name, const char *what, const char *extra, int bounds, strbuf *b) {
  const int shared = bounds || g->one_block;
  sb_printf(b, "// kfuse parallelize of %s (line %u): %s", g->k->name, g->k->loc.line, what);
  if (g->part_of)
    sb_printf(b, " (a part of the loop at line %u, distributed)", model_line(g->m, g->part_of->pos));
  if (g->one_block)
    sb_printf(b, "\nstatic __device__ void %s(", name);
  else if (bounds)
    sb_printf(b, "\n__global__ void __launch_bounds__(%d) %s(", bounds, name);
  else
    sb_printf(b, "\n__global__ void %s(", name);
  if (shared)
    pass_print_params_unrestricted(g->k, b);
  else
    pass_print_params(g->k, b);
  for (int i = 0; i < g->host.n; i++)
    sb_printf(b, ", %s %s", vtype(g, g->host.loop[i]->loop_var), g->k->vars[g->host.loop[i]->loop_var].name);
  if (g->nframe)
    sb_printf(b, ", %s_frame *%skf_fr", g->base, shared ? "" : "__restrict__ ");
  sb_printf(b, "%s) {\n", extra ? extra : "");
}

/* The launch of kernel name with grid and block, its arguments the site's, then extra (text
 * starting with ", ", or NULL). In one block (g->one_block), a call of the kernel's function
 * with the block's kernel's names instead, by thread 0 alone for a one-thread launch, then a
 * barrier: what the launch wrote is seen by every thread after it. */
static void launch(gen *g, const char *name, const char *grid, const char *block, const char *extra, strbuf *h,
                   int depth) {
  print_indent(h, depth);
  if (g->one_block && !strcmp(grid, "1") && !strcmp(block, "1")) {
    sb_puts(h, "if (threadIdx.x == 0) /* a one-thread launch */\n");
    print_indent(h, depth + 1);
  }
  if (g->one_block)
    sb_printf(h, "%s(", name);
  else
    sb_printf(h, "%s<<<%s, %s, 0, %s>>>(", name, grid, block, g->st->stream ? g->st->stream : "0");
  for (int i = 0; i < g->st->nargs; i++) {
    const char *t = !g->one_block ? pass_arg_text(g->m, g->e, NULL, g->st, i)
                    : i < g->k->nparams ? g->k->params[i].name
                                        : NULL;
    sb_printf(h, "%s%s", i ? ", " : "", t ? t : g->st->args[i].text);
  }
  for (int i = 0; i < g->host.n; i++)
    sb_printf(h, ", kf_%s", g->k->vars[g->host.loop[i]->loop_var].name);
  if (g->nframe)
    sb_printf(h, ", %s", g->one_block ? "kf_fr" : g->fr);
  sb_printf(h, "%s);\n", extra ? extra : "");
  if (g->one_block) {
    print_indent(h, depth);
    sb_puts(h, "__syncthreads();\n");
  }
}

/* `const T v = kf_fr->v;` for every frame variable s reads (a parallel kernel reads them once). */
static void frame_read(gen *g, int v, strbuf *b) {
  const char *t = vtype(g, v);
  sb_printf(b, "  %s%s %s = kf_fr->%s;\n", strchr(t, '*') ? "" : "const ", t, g->k->vars[v].name, member(g, v));
}

static void frame_reads(gen *g, const kstmt *s, strbuf *b) {
  for (int v = 0; v < g->k->nvars; v++)
    if (g->frame[v] && v != g->red_var && kst_names(s, v))
      frame_read(g, v, b);
}

/* The number of threads along a loop, as the host computes it (NULL: it cannot). */
static const char *extent(gen *g, const kstmt *L, arena *a) {
  int saved = g->in_device;
  g->in_device = 0;
  strbuf lo = {0}, hi = {0};
  print_e(g, L->lo, &lo);
  print_e(g, L->hi, &hi);
  g->in_device = saved;
  const kexpr *st = kx_strip(L->stride);
  const char *r = arena_printf(a, "kfuse_par_count((long long)(%s), (long long)(%s)%s, %lld)", lo.s, hi.s,
                               L->hi_inclusive ? " + 1" : "", (long long)st->ival);
  sb_free(&lo);
  sb_free(&hi);
  return r;
}

static int host_bounds(const gen *g, const kstmt *L) {
  return host_expr(g->k, &g->host, L->lo) && host_expr(g->k, &g->host, L->hi);
}

/* for (T i = lo + THREAD; i < hi; i += STRIDE) */
static void grid_loop(gen *g, const kstmt *L, const char *thread, const char *stride, int depth, strbuf *b) {
  const kexpr *st = kx_strip(L->stride);
  const char *var = g->k->vars[L->loop_var].name;
  const kexpr *lo = kx_strip(L->lo);
  print_indent(b, depth);
  sb_printf(b, "for (%s %s = ", vtype(g, L->loop_var), var);
  if (lo->kind != KE_INT || lo->ival != 0) {
    print_e(g, L->lo, b);
    sb_puts(b, " + ");
  }
  if (st->ival == 1)
    sb_printf(b, "(%s); %s %s ", thread, var, L->hi_inclusive ? "<=" : "<");
  else
    sb_printf(b, "%lld * (%s); %s %s ", (long long)st->ival, thread, var, L->hi_inclusive ? "<=" : "<");
  print_e(g, L->hi, b);
  if (st->ival == 1)
    sb_printf(b, "; %s += %s) {\n", var, stride);
  else
    sb_printf(b, "; %s += %lld * (%s)) {\n", var, (long long)st->ival, stride);
}

static void body_of(gen *g, const kstmt *L, int depth, strbuf *b) {
  const kstmt **s;
  int n = stmts_of(L->then, &s);
  const kstmt *copy[MAX_STMTS];
  n = n > MAX_STMTS ? MAX_STMTS : n;
  if (n)
    memcpy(copy, s, sizeof(kstmt *) * (size_t)n);
  for (int i = 0; i < n; i++)
    print_stmt_hooked(g, copy[i], depth, b);
}

static const char *dim_name = "xyz";

/* The C type of a float or integer element, or NULL. */
static const char *elem_c_type(ktype t) {
  switch (t) {
  case KT_F32: return "float";
  case KT_F64: return "double";
  case KT_I32: return "int";
  case KT_I64: return "long long";
  default: return NULL;
  }
}

/* An interchanged grid whose body is the one store `y[e] op= f` (or `=`), e the same in every
 * iteration of the loop each thread runs (naming neither its variable nor anything the body
 * assigns) and f reading no y: that store, whose element each thread then keeps in a register
 * while the loop runs, loaded before it and stored after it (bicg's and atax's
 * `y[j] += A[i][j] * x[i]`: one load and one store an element, not one of each an
 * iteration). The other buffers are other arrays (the pass's legality), so nothing else
 * reaches that element meanwhile; the order of the updates is the same. Where the loop runs
 * no iteration, the thread still reads its element and writes the same value back, which the
 * serial program does not touch: harmless unless e is then outside the buffer. Else NULL. */
static const kstmt *promoted(const gen *g, const item *it) {
  const kstmt **b;
  if (stmts_of(it->band[0]->then, &b) != 1)
    return NULL;
  const kstmt *st = b[0];
  if (st->kind != KST_STORE || st->param < 0 || st->array_var >= 0 || !st->value ||
      !elem_c_type(g->k->params[st->param].type) || kx_names(st->index, it->inner->loop_var) ||
      loads_param(st->index, st->param) || loads_param(st->value, st->param) ||
      (st->op >= 0 && st->op != KO_ADD && st->op != KO_SUB && st->op != KO_MUL))
    return NULL;
  for (int v = 0; v < g->k->nvars; v++)
    if (kx_names(st->index, v) && v != it->band[0]->loop_var && kst_assigns(it->band[0]->then, v))
      return NULL;
  return st;
}

/* Whether text is one parenthesized expression: `(n)`, not `(a) + (b)`. */
static int is_parenthesized(const char *text) {
  size_t n = strlen(text);
  if (n < 2 || text[0] != '(' || text[n - 1] != ')')
    return 0;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (!depth && i + 1 < n)
      return 0;
  }
  return 1;
}

/* Loop L's first value (c = 0) or its last (c = 1: its bound, less one where the bound is
 * exclusive; at most the last iteration), as the host computes them. */
static const char *end_value(gen *g, const kstmt *L, int c) {
  strbuf t = {0};
  int saved = g->in_device;
  g->in_device = 0;
  print_e(g, c ? L->hi : L->lo, &t);
  g->in_device = saved;
  const char *r = !c || L->hi_inclusive ? arena_strdup(g->v->a, t.s)
                  : is_parenthesized(t.s) ? arena_printf(g->v->a, "%s - 1", t.s)
                                          : arena_printf(g->v->a, "(%s) - 1", t.s);
  sb_free(&t);
  return r;
}

/* The lines of text (each ending in a newline), at depth. */
static void print_lines(strbuf *h, int depth, const char *text) {
  for (const char *l = text; l && *l;) {
    const char *e = strchr(l, '\n');
    print_indent(h, depth);
    sb_printf(h, "%.*s\n", (int)(e - l), l);
    l = e + 1;
  }
}

/* The most threads that grid loop band[i] needs, where its bounds name loops of the band
 * around it (a triangle: `j < i + 1`), as host lines in pre that compute it into kf_<dim>:
 * its bounds are linear in those loops' variables, so its extent is largest at a corner of
 * their ranges, which the host evaluates in turn. Returns the variable's name, or NULL
 * (nothing added) where the bounds are not linear or an outer loop's range is not the
 * host's to evaluate. */
static const char *corners(gen *g, const item *it, int i, char dim, strbuf *pre) {
  const kstmt *L = it->band[i], *outer[3];
  int n = 0;
  for (int j = 0; j < i; j++) {
    const kstmt *O = it->band[j];
    if (!names_band(g->k, L->lo, &O, 1) && !names_band(g->k, L->hi, &O, 1))
      continue;
    const kexpr *st = kx_strip(O->stride);
    if (!host_bounds(g, O) || st->kind != KE_INT || st->ival <= 0)
      return NULL;
    outer[n++] = O;
  }
  if (!n || !linear_in_band(g->k, L->lo, outer, n) || !linear_in_band(g->k, L->hi, outer, n))
    return NULL;
  int saved = g->host.n;
  for (int j = 0; j < n; j++)
    g->host.loop[g->host.n++] = outer[j];
  int ok = host_bounds(g, L);
  g->host.n = saved;
  if (!ok)
    return NULL;
  const char *var = g->k->vars[L->loop_var].name, *x = arena_printf(g->v->a, "kf_%c", dim);
  sb_printf(pre, "// the threads along %s: its bounds are linear in", var);
  for (int j = 0; j < n; j++)
    sb_printf(pre, "%s %s", j ? " and" : "", g->k->vars[outer[j]->loop_var].name);
  if (n == 1)
    sb_printf(pre, ", so it runs longest at %s's first or last value", g->k->vars[outer[0]->loop_var].name);
  else
    sb_puts(pre, ", so it runs longest at a corner of their ranges");
  sb_printf(pre, "\nlong long %s = 0;\n", x);
  g->in_device = 0;
  for (int j = 0; j < n; j++)
    g->host.loop[g->host.n++] = outer[j];
  const char *count = extent(g, L, g->v->a);
  g->host.n = saved;
  for (int c = 0; c < 1 << n; c++) {
    sb_puts(pre, "{\n");
    for (int j = 0; j < n; j++)
      sb_printf(pre, "  const %s kf_%s = %s;\n", vtype(g, outer[j]->loop_var), g->k->vars[outer[j]->loop_var].name,
                end_value(g, outer[j], c >> j & 1));
    sb_printf(pre, "  const long long kf_e = %s;\n  if (kf_e > %s)\n    %s = kf_e;\n}\n", count, x, x);
  }
  return x;
}

static void gen_par(gen *g, const item *it, strbuf *h, int depth) {
  const char *name = arena_printf(g->v->a, "%s_par%d", g->base, ++g->nkernels);
  strbuf *b = &g->kernels;
  g->in_device = 1;
  g->frame_direct = 0;
  g->red_var = -1;
  const char *what =
      it->inner ? arena_printf(g->v->a, "the loop at line %u and the one around it at line %u interchanged, a 1-D grid "
                               "over the first, each thread running the second",
                               model_line(g->m, it->loop->pos), model_line(g->m, it->inner->pos))
                : arena_printf(g->v->a, "the loop%s at line %u, %d-D grid%s", it->nband > 1 ? "s" : "",
                               model_line(g->m, it->loop->pos), it->nband,
                               it->atomic ? ", its histogram's additions atomic" : "");
  kernel_head(g, name, what, NULL, 0, b);
  g->atomic = it->atomic;
  frame_reads(g, it->inner ? it->inner : it->loop, b);
  int nb = it->nband;
  for (int i = 0; i < nb; i++) {
    int d = nb - 1 - i; /* the innermost loop along x */
    const char *thread = arena_printf(g->v->a, "blockIdx.%c * blockDim.%c + threadIdx.%c", dim_name[d], dim_name[d],
                                      dim_name[d]);
    const char *stride = arena_printf(g->v->a, "gridDim.%c * blockDim.%c", dim_name[d], dim_name[d]);
    grid_loop(g, it->band[i], thread, stride, 1 + i, b);
    for (int j = 0; i + 1 < nb && j < it->npre; j++) /* the declarations in its body */
      if (it->pre_level[j] == i)
        print_stmt_hooked(g, it->pre[j], 2 + i, b);
  }
  const kstmt *acc = it->inner ? promoted(g, it) : NULL;
  const char *reg = acc ? arena_printf(g->v->a, "kf_%s", g->k->params[acc->param].name) : NULL;
  if (acc) { /* the element in a register while the outer loop runs (below) */
    print_indent(b, 1 + nb);
    sb_printf(b, "%s %s = %s[", elem_c_type(g->k->params[acc->param].type), reg, g->k->params[acc->param].name);
    print_e(g, acc->index, b);
    sb_puts(b, "];\n");
  }
  if (it->inner) { /* the loop that was around, now inside: each thread runs it */
    const kstmt *O = it->inner;
    print_indent(b, 1 + nb);
    sb_printf(b, "for (%s %s = ", vtype(g, O->loop_var), g->k->vars[O->loop_var].name);
    print_e(g, O->lo, b);
    sb_printf(b, "; %s %s ", g->k->vars[O->loop_var].name, O->hi_inclusive ? "<=" : "<");
    print_e(g, O->hi, b);
    sb_printf(b, "; %s += %lld) {\n", g->k->vars[O->loop_var].name, (long long)kx_strip(O->stride)->ival);
    if (acc) {
      print_indent(b, 2 + nb);
      sb_printf(b, "%s %s= ", reg, acc->op >= 0 ? kop_text((kop)acc->op) : "");
      print_e(g, acc->value, b);
      sb_puts(b, ";\n");
    } else
      body_of(g, it->band[0], 2 + nb, b);
    print_indent(b, 1 + nb);
    sb_puts(b, "}\n");
    if (acc) {
      print_indent(b, 1 + nb);
      sb_printf(b, "%s[", g->k->params[acc->param].name);
      print_e(g, acc->index, b);
      sb_printf(b, "] = %s;\n", reg);
    }
  } else
    body_of(g, it->band[nb - 1], 1 + nb, b);
  g->atomic = 0;
  for (int i = nb - 1; i >= 0; i--) {
    print_indent(b, 1 + i);
    sb_puts(b, "}\n");
  }
  sb_puts(b, "}\n\n");
  /* the grid: each dimension's threads over its loop's extent, or a fixed count where the
   * extent depends on an outer loop of the grid */
  int bx = nb == 1 ? g->block : 32, by = nb == 1 ? 1 : (nb == 2 ? g->block / 32 : 4), bz = nb == 3 ? g->block / 128 : 1;
  int bdim[3] = {bx, by, bz};
  const char *gd[3] = {"1", "1", "1"};
  g->in_device = 0;
  strbuf pre = {0}; /* host lines computing an extent from the outer loops' (corners()) */
  for (int i = 0; i < nb; i++) {
    int d = nb - 1 - i;
    static const long long cap[3] = {1 << 20, 65535, 65535};
    const char *most = host_bounds(g, it->band[i]) ? NULL : corners(g, it, i, dim_name[d], &pre);
    if (host_bounds(g, it->band[i]))
      gd[d] = arena_printf(g->v->a, "kfuse_par_blocks(%s, %d, %lld)", extent(g, it->band[i], g->v->a), bdim[d], cap[d]);
    else if (most)
      gd[d] = arena_printf(g->v->a, "kfuse_par_blocks(%s, %d, %lld)", most, bdim[d], cap[d]);
    else
      gd[d] = d == 0 ? "256" : "64";
  }
  const char *grid = nb == 1 ? gd[0] : arena_printf(g->v->a, "dim3(%s, %s, %s)", gd[0], gd[1], gd[2]);
  const char *block = nb == 1 ? arena_printf(g->v->a, "%d", bx) : arena_printf(g->v->a, "dim3(%d, %d, %d)", bx, by, bz);
  if (pre.len && !g->one_block) { /* in one block, no grid to size */
    print_indent(h, depth);
    sb_puts(h, "{\n");
    print_lines(h, depth + 1, pre.s);
    launch(g, name, grid, block, NULL, h, depth + 1);
    print_indent(h, depth);
    sb_puts(h, "}\n");
  } else
    launch(g, name, grid, block, NULL, h, depth);
  sb_free(&pre);
}

/* The part of a wavefront's kernel that runs one front, kf_front: a loop over L's iterations
 * (thread and stride as grid_loop() takes them), each computing J's variable as
 * kf_front - s * L's and running that iteration of J where it is in J's bounds. */
static void wave_front(gen *g, const item *it, const char *thread, const char *stride, int depth, strbuf *b) {
  const kstmt *L = it->band[0], *J = it->band[1];
  const char *lv = g->k->vars[L->loop_var].name, *jv = g->k->vars[J->loop_var].name;
  grid_loop(g, L, thread, stride, depth, b);
  for (int j = 0; j < it->npre; j++)
    print_stmt_hooked(g, it->pre[j], depth + 1, b);
  print_indent(b, depth + 1);
  if (it->front_s == 1)
    sb_printf(b, "const %s %s = (%s)(kf_front - %s);\n", vtype(g, J->loop_var), jv, vtype(g, J->loop_var), lv);
  else
    sb_printf(b, "const %s %s = (%s)(kf_front - %d * (long long)%s);\n", vtype(g, J->loop_var), jv,
              vtype(g, J->loop_var), it->front_s, lv);
  print_indent(b, depth + 1);
  sb_printf(b, "if (%s < ", jv);
  print_e(g, J->lo, b);
  sb_printf(b, " || %s %s ", jv, J->hi_inclusive ? ">" : ">=");
  print_e(g, J->hi, b);
  sb_puts(b, ")\n");
  print_indent(b, depth + 2);
  sb_puts(b, "continue; /* not in this front */\n");
  body_of(g, J, depth + 1, b);
  print_indent(b, depth);
  sb_puts(b, "}\n");
}

/* The most threads of the one block that runs every front of a wavefront (below). */
#define WAVE_BLOCK 1024
/* The threads of the one block that runs a site (oneblock=1). */
#define ONE_BLOCK 1024

/* A wavefront (wave_match()), in two kernels:
 *   - one over L's iterations for one front, a launch a front: the host loops over the fronts
 *     from the least to the most, which it evaluates at L's first and last values (J's bounds
 *     are linear in L's variable);
 *   - one block that runs every front in turn, a barrier between fronts: each thread does
 *     what it would in a launch a front of one block, and a barrier takes the place of a
 *     launch.
 * The host launches the second where L's range has at most WAVE_BLOCK iterations, else the
 * first a front; with fronts=1 (g->fronts_any), the second whatever the range, and the first
 * is not written. */
static void gen_wave(gen *g, const item *it, strbuf *h, int depth) {
  const kstmt *L = it->band[0], *J = it->band[1];
  const char *name = arena_printf(g->v->a, "%s_par%d", g->base, ++g->nkernels);
  const char *fronts = arena_printf(g->v->a, "%s_fronts", name);
  const char *lv = g->k->vars[L->loop_var].name, *jv = g->k->vars[J->loop_var].name;
  const char *front = it->front_s == 1 ? arena_printf(g->v->a, "%s + %s", lv, jv)
                                       : arena_printf(g->v->a, "%d * %s + %s", it->front_s, lv, jv);
  strbuf *b = &g->kernels;
  g->in_device = 1;
  g->frame_direct = 0;
  g->red_var = -1;
  g->nwaves++;
  const char *what;
  if (!g->fronts_any) {
    what = arena_printf(g->v->a,
                        "the loops at lines %u and %u as a wavefront, one launch a front of %s: a 1-D grid over %s, "
                        "each thread the %s of its front",
                        model_line(g->m, L->pos), model_line(g->m, J->pos), front, lv, jv);
    kernel_head(g, name, what, ", long long kf_front", 0, b);
    frame_reads(g, L, b);
    wave_front(g, it, "blockIdx.x * blockDim.x + threadIdx.x", "gridDim.x * blockDim.x", 1, b);
    sb_puts(b, "}\n\n");
  }
  what = arena_printf(g->v->a,
                      "the loops at lines %u and %u as a wavefront in one block: every front of %s in turn, "
                      "a barrier between fronts, each thread the %s of its share of %s",
                      model_line(g->m, L->pos), model_line(g->m, J->pos), front, jv, lv);
  kernel_head(g, fronts, what, ", long long kf_first, long long kf_last", WAVE_BLOCK, b);
  frame_reads(g, L, b);
  sb_puts(b, "  for (long long kf_front = kf_first; kf_front <= kf_last; kf_front++) {\n");
  wave_front(g, it, "threadIdx.x", "blockDim.x", 2, b);
  sb_puts(b, "    __syncthreads(); /* the front done before the next */\n  }\n}\n\n");
  /* the host: the fronts' range at L's first and last values, then a launch a front */
  g->in_device = 0;
  strbuf jlo = {0}, jhi = {0}, pre = {0};
  g->host.loop[g->host.n++] = L;
  print_e(g, J->lo, &jlo);
  print_e(g, J->hi, &jhi);
  g->host.n--;
  sb_printf(&pre, "// the fronts of %s: linear in %s, so the first and last are at %s's first or last value\n",
            front, lv, lv);
  sb_puts(&pre, "long long kf_first, kf_last;\n");
  const char *at = it->front_s == 1 ? arena_printf(g->v->a, "(long long)kf_%s", lv)
                                    : arena_printf(g->v->a, "%d * (long long)kf_%s", it->front_s, lv);
  for (int c = 0; c < 2; c++) {
    sb_printf(&pre, "{\n  const %s kf_%s = %s;\n", vtype(g, L->loop_var), lv, end_value(g, L, c));
    sb_printf(&pre, "  const long long kf_lo = %s + (%s), kf_hi = %s + (%s)%s;\n", at, jlo.s, at, jhi.s,
              J->hi_inclusive ? "" : " - 1");
    if (c)
      sb_puts(&pre, "  kf_first = kf_lo < kf_first ? kf_lo : kf_first;\n"
                    "  kf_last = kf_hi > kf_last ? kf_hi : kf_last;\n}\n");
    else
      sb_puts(&pre, "  kf_first = kf_lo;\n  kf_last = kf_hi;\n}\n");
  }
  sb_printf(&pre, "const long long kf_n = %s;\n", extent(g, L, g->v->a));
  if (g->fronts_any)
    sb_printf(&pre, "/* one block runs every front, each thread taking every %dth of %s's iterations */\n",
              WAVE_BLOCK, lv);
  else
    sb_printf(&pre, "if (kf_n <= %d) /* %s's range in one block: it runs every front */\n", WAVE_BLOCK, lv);
  print_indent(h, depth);
  sb_puts(h, "{\n");
  print_lines(h, depth + 1, pre.s);
  launch(g, fronts, "1", arena_printf(g->v->a, "kfuse_par_blocks(kf_n, 32, %d) * 32", WAVE_BLOCK / 32),
         ", kf_first, kf_last", h, depth + 1 + !g->fronts_any);
  if (!g->fronts_any) {
    print_lines(h, depth + 1, "else\n  for (long long kf_front = kf_first; kf_front <= kf_last; kf_front++)\n");
    launch(g, name, arena_printf(g->v->a, "kfuse_par_blocks(kf_n, %d, %d)", g->block, 1 << 20),
           arena_printf(g->v->a, "%d", g->block), ", kf_front", h, depth + 3);
  }
  print_indent(h, depth);
  sb_puts(h, "}\n");
  sb_free(&jlo);
  sb_free(&jhi);
  sb_free(&pre);
}

static const char *identity(const char *op, ktype t) {
  if (!strcmp(op, "+"))
    return "0";
  int is_max = strstr(op, "max") != NULL;
  switch (t) {
  case KT_F32: return is_max ? "-INFINITY" : "INFINITY";
  case KT_F64: return is_max ? "-(double)INFINITY" : "(double)INFINITY";
  case KT_I32: return is_max ? "(-2147483647 - 1)" : "2147483647";
  default: return is_max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
  }
}

static const char *combine(arena *a, const char *op, const char *x, const char *y) {
  if (!strcmp(op, "+"))
    return arena_printf(a, "%s + %s", x, y);
  return arena_printf(a, "%s(%s, %s)", op, x, y);
}

/* Whether op is one of an argmax's (argmin's) pair: "argmax" (the first index of the
 * maximum, `>`), "argmax_last" (`>=`), "argmin", "argmin_last". */
static int is_arg(const char *op) { return !strncmp(op, "arg", 3); }

/* Where a reduction's value sits: fmt's %s is the variable's name, or its frame member. */
static const char *at_(gen *g, const char *fmt, int v, int use_member) {
  return arena_printf(g->v->a, fmt, use_member ? member(g, v) : g->k->vars[v].name);
}

/* Lines combining y into x for every accumulator of it (x, y: formats of at_, xm, ym:
 * whether they name frame members). For an argmax's pair, y's index wins a tie by order
 * (the first or the last, as the loop's comparison had it); at the frame (`final`), the
 * loop's value must beat the value from before the loop as the comparison says. */
static void emit_combine(gen *g, const item *it, const char *x, int xm, const char *y, int ym, int final, int depth,
                         strbuf *b) {
  for (int r = 0; r < it->nred; r++) {
    const char *op = it->red_op[r];
    if (!strcmp(op, "index"))
      continue; /* with its value */
    const char *xv = at_(g, x, it->red[r], xm), *yv = at_(g, y, it->red[r], ym);
    print_indent(b, depth);
    if (!is_arg(op)) {
      sb_printf(b, "%s = %s;\n", xv, combine(g->v->a, op, xv, yv));
      continue;
    }
    const char *xk = at_(g, x, it->red[r + 1], xm), *yk = at_(g, y, it->red[r + 1], ym);
    int max = !strncmp(op, "argmax", 6), last = strstr(op, "_last") != NULL;
    if (final)
      sb_printf(b, "if (%s %s%s %s) {\n", yv, max ? ">" : "<", last ? "=" : "", xv);
    else
      sb_printf(b, "if (%s %s %s || (%s == %s && %s %s %s)) {\n", yv, max ? ">" : "<", xv, yv, xv, yk, last ? ">" : "<",
                xk);
    print_indent(b, depth + 1);
    sb_printf(b, "%s = %s;\n", xv, yv);
    print_indent(b, depth + 1);
    sb_printf(b, "%s = %s;\n", xk, yk);
    print_indent(b, depth);
    sb_puts(b, "}\n");
  }
}

/* Each thread's accumulators into kf_sh_<v>[0, block) in shared memory, and the fixed tree
 * over them, thread 0's last. In one block, where thread t takes the loop's iterations t,
 * t + ONE_BLOCK, ..., the threads from the range's count on hold the identity, and a level
 * whose width is at least the count combines with the identity alone: the tree starts at the
 * widest level below the count (kf_top, alike in every thread, so every barrier is reached
 * by all), a barrier a level fewer for short ranges (ludcmp's and gramschmidt's). */
static void block_tree(gen *g, const item *it, int depth, strbuf *b) {
  const int threads = g->one_block ? ONE_BLOCK : g->block;
  const char *top = g->one_block ? "kf_top" : arena_printf(g->v->a, "%d", threads / 2);
  if (g->one_block) {
    const kstmt *L = it->loop;
    const long long step = kx_strip(L->stride)->ival;
    const kexpr *l0 = kx_strip(L->lo);
    print_indent(b, depth);
    sb_printf(b, "int kf_top = %d; /* the widest level below the range's count */\n", threads / 2);
    print_indent(b, depth);
    sb_puts(b, "while (kf_top > 0 && ");
    if (step == 1)
      sb_puts(b, "kf_top");
    else
      sb_printf(b, "(long long)kf_top * %lld", step);
    sb_puts(b, " >= (long long)(");
    print_e(g, L->hi, b);
    sb_printf(b, ")%s", L->hi_inclusive ? " + 1" : "");
    if (l0->kind != KE_INT || l0->ival != 0) {
      sb_puts(b, " - (long long)(");
      print_e(g, L->lo, b);
      sb_puts(b, ")");
    }
    sb_puts(b, ")\n");
    print_indent(b, depth + 1);
    sb_puts(b, "kf_top >>= 1;\n");
  }
  for (int r = 0; r < it->nred; r++) {
    const char *v = g->k->vars[it->red[r]].name;
    print_indent(b, depth);
    sb_printf(b, "__shared__ %s kf_sh_%s[%d];\n", vtype(g, it->red[r]), v, threads);
    print_indent(b, depth);
    sb_printf(b, "kf_sh_%s[threadIdx.x] = %s;\n", v, v);
  }
  print_indent(b, depth);
  sb_puts(b, "__syncthreads();\n");
  print_indent(b, depth);
  sb_printf(b, "for (int kf_w = %s; kf_w > 0; kf_w >>= 1) {\n", top);
  print_indent(b, depth + 1);
  sb_puts(b, "if ((int)threadIdx.x < kf_w) {\n");
  emit_combine(g, it, "kf_sh_%s[threadIdx.x]", 0, "kf_sh_%s[threadIdx.x + kf_w]", 0, 0, depth + 2, b);
  print_indent(b, depth + 1);
  sb_puts(b, "}\n");
  print_indent(b, depth + 1);
  sb_puts(b, "__syncthreads();\n");
  print_indent(b, depth);
  sb_puts(b, "}\n");
}

/* The identity of accumulator r of it: where a thread without iterations starts. */
static const char *red_identity(gen *g, const item *it, int r) {
  ktype t = g->k->vars[it->red[r]].type;
  if (strcmp(it->red_op[r], "index"))
    return identity(it->red_op[r], t);
  int last = strstr(it->red_op[r - 1], "_last") != NULL; /* the index loses every tie */
  return identity(last ? "max" : "min", t);
}

static void gen_red(gen *g, const item *it, strbuf *h, int depth) {
  const char *name = arena_printf(g->v->a, "%s_red%d", g->base, ++g->nkernels);
  strbuf *b = &g->kernels;
  arena *a = g->v->a;
  g->in_device = 1;
  g->frame_direct = 0;
  g->red_var = -1;
  kernel_head(g, name,
              arena_printf(a, g->one_block ? "the reduction at line %u, by the block" : "the reduction at line %u, "
                                                                                          "each block's share",
                           model_line(g->m, it->loop->pos)),
              NULL, 0, b);
  for (int v = 0; v < g->k->nvars; v++) {
    int is_red = 0;
    for (int r = 0; r < it->nred; r++)
      is_red |= it->red[r] == v;
    if (g->frame[v] && !is_red && kst_names(it->loop, v))
      frame_read(g, v, b);
  }
  for (int r = 0; r < it->nred; r++)
    sb_printf(b, "  %s %s = %s;\n", vtype(g, it->red[r]), g->k->vars[it->red[r]].name, red_identity(g, it, r));
  grid_loop(g, it->loop, "blockIdx.x * blockDim.x + threadIdx.x", "gridDim.x * blockDim.x", 1, b);
  body_of(g, it->loop, 2, b);
  sb_puts(b, "  }\n");
  block_tree(g, it, 1, b);
  sb_puts(b, "  if (threadIdx.x == 0) {\n");
  if (g->one_block) { /* the block's result is the whole reduction's: into the frame */
    emit_combine(g, it, "kf_fr->%s", 1, "kf_sh_%s[0]", 0, 1, 2, b);
    sb_puts(b, "  }\n}\n\n");
    g->in_device = 0;
    launch(g, name, "1", arena_printf(a, "%d", ONE_BLOCK), NULL, h, depth);
    return;
  }
  for (int r = 0; r < it->nred; r++) {
    const char *v = g->k->vars[it->red[r]].name;
    sb_printf(b, "    kf_fr->kf_part_%s[blockIdx.x] = kf_sh_%s[0];\n", member(g, it->red[r]), v);
  }
  sb_puts(b, "  }\n}\n\n");
  /* the blocks' partial results, in block order, by one block */
  const char *done = arena_printf(a, "%s_red%d_done", g->base, g->nkernels);
  sb_printf(b, "// kfuse parallelize of %s: the reduction at line %u, the blocks' results in a fixed order\n",
            g->k->name, model_line(g->m, it->loop->pos));
  sb_printf(b, "__global__ void %s(%s_frame *__restrict__ kf_fr, int kf_blocks) {\n", done, g->base);
  for (int r = 0; r < it->nred; r++)
    sb_printf(b, "  %s %s = %s;\n", vtype(g, it->red[r]), g->k->vars[it->red[r]].name, red_identity(g, it, r));
  sb_puts(b, "  for (int kf_b = threadIdx.x; kf_b < kf_blocks; kf_b += blockDim.x) {\n");
  emit_combine(g, it, "%s", 0, "kf_fr->kf_part_%s[kf_b]", 1, 0, 2, b);
  sb_puts(b, "  }\n");
  block_tree(g, it, 1, b);
  sb_puts(b, "  if (threadIdx.x == 0) {\n");
  emit_combine(g, it, "kf_fr->%s", 1, "kf_sh_%s[0]", 0, 1, 2, b);
  sb_puts(b, "  }\n}\n\n");
  g->in_device = 0;
  const char *blocks = host_bounds(g, it->loop)
                           ? arena_printf(a, "kfuse_par_blocks(%s, %d, %d)", extent(g, it->loop, a), g->block, RED_PARTS)
                           : arena_printf(a, "%d", RED_PARTS);
  print_indent(h, depth);
  sb_printf(h, "{\n");
  print_indent(h, depth + 1);
  sb_printf(h, "const unsigned kf_blocks = %s;\n", blocks);
  launch(g, name, "kf_blocks", arena_printf(a, "%d", g->block), NULL, h, depth + 1);
  print_indent(h, depth + 1);
  sb_printf(h, "%s<<<1, %d, 0, %s>>>(%s, (int)kf_blocks);\n", done, g->block, g->st->stream ? g->st->stream : "0",
            g->fr);
  print_indent(h, depth);
  sb_printf(h, "}\n");
}

/* The scan's operator on x and y (x the earlier). */
static const char *scan_op(arena *a, const item *it, const char *x, const char *y) { return combine(a, it->scan_op, x, y); }

/* A Hillis-Steele inclusive scan of kf_sh[0, block) in shared memory: a fixed order. */
static void block_scan(gen *g, const item *it, const char *t, const char *ident, strbuf *b) {
  sb_printf(b, "  __syncthreads();\n  for (int kf_d = 1; kf_d < %d; kf_d <<= 1) {\n", g->block);
  sb_printf(b, "    const %s kf_w = (int)threadIdx.x >= kf_d ? kf_sh[threadIdx.x - kf_d] : %s;\n", t, ident);
  sb_printf(b, "    __syncthreads();\n    kf_sh[threadIdx.x] = %s;\n    __syncthreads();\n  }\n",
            scan_op(g->v->a, it, "kf_w", "kf_sh[threadIdx.x]"));
}

/* A scan y[i] = y[i - 1] op g(i) over [lo, hi): each block scans its share in shared memory
 * and leaves its total; one block scans the totals from y[lo - 1] in a fixed order; each
 * block adds its offset. Deterministic; a sum is reassociated. */
static void gen_scan(gen *g, const item *it, strbuf *h, int depth) {
  arena *a = g->v->a;
  strbuf *b = &g->kernels;
  const kstmt *L = it->loop;
  const kkparam *Y = &g->k->params[it->scan_store->param];
  const char *t = Y->type == KT_F32 ? "float" : Y->type == KT_F64 ? "double" : Y->type == KT_I32 ? "int" : "long long";
  const char *ident = identity(it->scan_op, Y->type);
  const char *iv = g->k->vars[L->loop_var].name, *it_t = vtype(g, L->loop_var);
  int n = ++g->nkernels;
  g->in_device = 1;
  g->frame_direct = 0;
  g->red_var = -1;
  strbuf lo = {0}, hi = {0};
  print_e(g, L->lo, &lo);
  print_e(g, L->hi, &hi);
  const char *count = arena_printf(a, "(long long)(%s)%s - (long long)(%s)", hi.s, L->hi_inclusive ? " + 1" : "", lo.s);
  unsigned line = model_line(g->m, L->pos);
  /* 1: each block's share */
  const char *k1 = arena_printf(a, "%s_scan%d", g->base, n);
  kernel_head(g, k1, arena_printf(a, "the scan at line %u, each block's share", line),
              arena_printf(a, ", %s *__restrict__ kf_part", t), 0, b);
  frame_reads(g, L, b);
  sb_printf(b, "  __shared__ %s kf_sh[%d];\n  const long long kf_k = (long long)blockIdx.x * %d + threadIdx.x;\n", t,
            g->block, g->block);
  sb_printf(b, "  %s kf_v = %s;\n  if (kf_k < %s) {\n    const %s %s = (%s)((%s) + kf_k);\n    kf_v = ", t, ident, count,
            it_t, iv, it_t, lo.s);
  print_e(g, it->scan_term, b);
  sb_puts(b, ";\n  }\n  kf_sh[threadIdx.x] = kf_v;\n");
  block_scan(g, it, t, ident, b);
  sb_printf(b, "  if (kf_k < %s)\n    %s[(%s) + kf_k] = kf_sh[threadIdx.x];\n", count, Y->name, lo.s);
  sb_printf(b, "  if (threadIdx.x == %d)\n    kf_part[blockIdx.x] = kf_sh[%d];\n}\n\n", g->block - 1, g->block - 1);
  /* 2: the blocks' offsets, from y[lo - 1] */
  const char *k2 = arena_printf(a, "%s_scan%d_offsets", g->base, n);
  kernel_head(g, k2, arena_printf(a, "the scan at line %u, the blocks' offsets in a fixed order", line),
              arena_printf(a, ", %s *__restrict__ kf_part, int kf_blocks", t), 0, b);
  sb_printf(b, "  __shared__ %s kf_sh[%d];\n  __shared__ %s kf_carry;\n", t, g->block, t);
  sb_printf(b, "  if (threadIdx.x == 0)\n    kf_carry = %s[(%s) - 1];\n", Y->name, lo.s);
  sb_printf(b, "  for (int kf_c = 0; kf_c < kf_blocks; kf_c += %d) {\n", g->block);
  sb_printf(b, "    const int kf_b = kf_c + (int)threadIdx.x;\n    kf_sh[threadIdx.x] = kf_b < kf_blocks ? kf_part[kf_b] : %s;\n",
            ident);
  strbuf inner = {0};
  block_scan(g, it, t, ident, &inner);
  for (char *q = inner.s; q && *q; q++) { /* indent the block scan one level more */
    sb_puts(b, "  ");
    char *nl = strchr(q, '\n');
    sb_putn(b, q, (size_t)(nl - q + 1));
    q = nl;
  }
  sb_free(&inner);
  sb_printf(b, "    const %s kf_before = threadIdx.x ? kf_sh[threadIdx.x - 1] : %s;\n", t, ident);
  sb_printf(b, "    if (kf_b < kf_blocks)\n      kf_part[kf_b] = %s;\n", scan_op(a, it, "kf_carry", "kf_before"));
  sb_printf(b, "    __syncthreads();\n    if (threadIdx.x == 0)\n      kf_carry = %s;\n    __syncthreads();\n  }\n}\n\n",
            scan_op(a, it, "kf_carry", arena_printf(a, "kf_sh[%d]", g->block - 1)));
  /* 3: each block's offset */
  const char *k3 = arena_printf(a, "%s_scan%d_add", g->base, n);
  kernel_head(g, k3, arena_printf(a, "the scan at line %u, each block's offset added", line),
              arena_printf(a, ", const %s *__restrict__ kf_part", t), 0, b);
  sb_printf(b, "  const long long kf_k = (long long)blockIdx.x * %d + threadIdx.x;\n  if (kf_k < %s)\n", g->block, count);
  sb_printf(b, "    %s[(%s) + kf_k] = %s;\n}\n\n", Y->name, lo.s,
            scan_op(a, it, "kf_part[blockIdx.x]", arena_printf(a, "%s[(%s) + kf_k]", Y->name, lo.s)));
  /* the host: scratch for the blocks' totals */
  g->in_device = 0;
  const char *stream = g->st->stream ? g->st->stream : "0";
  print_indent(h, depth);
  sb_printf(h, "if (%s > 0) {\n", extent(g, L, a));
  print_indent(h, depth + 1);
  sb_printf(h, "const unsigned kf_blocks = kfuse_par_blocks(%s, %d, 2147483647);\n", extent(g, L, a), g->block);
  print_indent(h, depth + 1);
  sb_printf(h, "%s *kf_part = NULL;\n", t);
  print_indent(h, depth + 1);
  sb_printf(h, "cudaMallocAsync((void **)&kf_part, sizeof(%s) * kf_blocks, %s);\n", t, stream);
  /* the scratch (and, for the blocks' scan, their count) after the site's arguments */
  const char *block = arena_printf(a, "%d", g->block);
  launch(g, k1, "kf_blocks", block, ", kf_part", h, depth + 1);
  launch(g, k2, "1", block, ", kf_part, (int)kf_blocks", h, depth + 1);
  launch(g, k3, "kf_blocks", block, ", kf_part", h, depth + 1);
  print_indent(h, depth + 1);
  sb_printf(h, "cudaFreeAsync(kf_part, %s);\n", stream);
  print_indent(h, depth);
  sb_puts(h, "}\n");
  sb_free(&lo);
  sb_free(&hi);
}

static void gen_serial(gen *g, const item *it, strbuf *h, int depth) {
  const char *name = arena_printf(g->v->a, "%s_serial%d", g->base, ++g->nkernels);
  strbuf *b = &g->kernels;
  g->in_device = 1;
  g->frame_direct = 1;
  kernel_head(g, name,
              arena_printf(g->v->a, "line%s %u%s, in one thread", it->nstmts > 1 ? "s" : "",
                           model_line(g->m, it->stmts[0]->pos), it->nstmts > 1 ? " on" : ""),
              NULL, 0, b);
  /* the frame's variables as the kernel's own, copied in, and back where they change */
  for (int v = 0; v < g->k->nvars; v++) {
    int named = 0;
    for (int i = 0; i < it->nstmts && !named; i++)
      named = kst_names(it->stmts[i], v);
    if (g->frame[v] && named)
      sb_printf(b, "  %s %s = kf_fr->%s;\n", vtype(g, v), g->k->vars[v].name, member(g, v));
  }
  for (int i = 0; i < it->nstmts; i++)
    print_stmt_hooked(g, it->stmts[i], 1, b);
  for (int v = 0; v < g->k->nvars; v++) {
    int set = 0;
    for (int i = 0; i < it->nstmts && !set; i++)
      set = kst_assigns(it->stmts[i], v);
    if (g->frame[v] && set)
      sb_printf(b, "  kf_fr->%s = %s;\n", member(g, v), g->k->vars[v].name);
  }
  sb_puts(b, "}\n\n");
  g->frame_direct = 0;
  launch(g, name, "1", "1", NULL, h, depth);
}

static void gen_items(gen *g, const item *items, int n, strbuf *h, int depth);

static void gen_loop(gen *g, const item *it, strbuf *h, int depth) {
  const kstmt *L = it->loop;
  const char *var = g->k->vars[L->loop_var].name;
  g->in_device = 0;
  print_indent(h, depth);
  sb_printf(h, "for (%s kf_%s = ", vtype(g, L->loop_var), var);
  print_e(g, L->lo, h);
  sb_printf(h, "; kf_%s %s ", var, L->hi_inclusive ? "<=" : "<");
  print_e(g, L->hi, h);
  sb_printf(h, "; kf_%s += %lld) {\n", var, (long long)kx_strip(L->stride)->ival);
  g->host.loop[g->host.n++] = L;
  gen_items(g, it->body, it->nbody, h, depth + 1);
  g->host.n--;
  print_indent(h, depth);
  sb_puts(h, "}\n");
}

static void gen_items(gen *g, const item *items, int n, strbuf *h, int depth) {
  for (int i = 0; i < n; i++, g->part_of = NULL) {
    g->part_of = items[i].part_of;
    switch (items[i].kind) {
    case IT_SERIAL: gen_serial(g, &items[i], h, depth); break;
    case IT_PAR: gen_par(g, &items[i], h, depth); break;
    case IT_RED: gen_red(g, &items[i], h, depth); break;
    case IT_SCAN: gen_scan(g, &items[i], h, depth); break;
    case IT_LOOP: gen_loop(g, &items[i], h, depth); break;
    case IT_WAVE: gen_wave(g, &items[i], h, depth); break;
    }
  }
}

/* Whether items can run in one block (oneblock=1): one-thread runs, grids, reductions (the
 * block's tree is the whole reduction's) and host loops of them, nothing else (a scan's
 * carries are passed between blocks; a wavefront has its own one-block form). A grid's loops
 * stride by the grid, so in a block of ONE_BLOCK x 1 x 1 threads the innermost loop of a 2-D or
 * 3-D grid is split among the threads and each runs the outer ones whole. *loops counts the
 * host loops. */
static int one_block_fits(const item *items, int n, int *loops) {
  for (int i = 0; i < n; i++) {
    const item *it = &items[i];
    if (it->kind == IT_LOOP) {
      ++*loops;
      if (!one_block_fits(it->body, it->nbody, loops))
        return 0;
    } else if (it->kind != IT_SERIAL && it->kind != IT_PAR && it->kind != IT_RED)
      return 0;
  }
  return 1;
}

/* Frame variables: the scalars declared by the serial items' top-level statements, and the
 * accumulators of the reductions. */
static void mark_frame(gen *g, const item *items, int n) {
  for (int i = 0; i < n; i++) {
    const item *it = &items[i];
    for (int s = 0; s < it->nstmts; s++) {
      const kstmt *st = it->stmts[s];
      if (st->kind == KST_DECL)
        g->frame[st->var] = 1;
      if (st->kind == KST_BLOCK && st->text)
        for (int j = 0; j < st->nbody; j++)
          if (st->body[j]->kind == KST_DECL)
            g->frame[st->body[j]->var] = 1;
    }
    for (int r = 0; r < it->nred; r++)
      g->frame[it->red[r]] = 1;
    mark_frame(g, it->body, it->nbody);
  }
}

/* Whether a reduction or a scan is among the items: their identities need <math.h>'s
 * INFINITY. */
static int has_red(const item *items, int n) {
  for (int i = 0; i < n; i++)
    if (items[i].kind == IT_RED || items[i].kind == IT_SCAN || has_red(items[i].body, items[i].nbody))
      return 1;
  return 0;
}

static void red_slots(gen *g, const item *items, int n, strbuf *b, unsigned char *done) {
  for (int i = 0; i < n; i++) {
    for (int r = 0; r < items[i].nred; r++) {
      int v = items[i].red[r];
      if (!done[v])
        sb_printf(b, "  %s kf_part_%s[%d];\n", vtype(g, v), member(g, v), RED_PARTS);
      done[v] = 1;
    }
    red_slots(g, items[i].body, items[i].nbody, b, done);
  }
}

static const char helper[] =
    "// kfuse parallelize: the blocks over n threads (at least 1, at most cap; each kernel loops\n"
    "// over the rest)\n"
    "static inline long long kfuse_par_count(long long lo, long long hi, long long step) {\n"
    "  return hi > lo ? (hi - lo + step - 1) / step : 0;\n"
    "}\n"
    "static inline unsigned kfuse_par_blocks(long long n, int block, long long cap) {\n"
    "  long long b = (n + block - 1) / block;\n"
    "  return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);\n"
    "}\n";

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kkernel *k;
  const kstep *st = pass_launch_again(v, site, "parallelize", match, &k, d);
  if (!st)
    return 0;
  static item items[MAX_ITEMS];
  item *ip = items;
  int n = 0;
  static plan p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.k = k;
  plan_stmt(&p, k->body, &ip, &n);
  gen g = {0};
  g.v = v;
  g.m = m;
  g.e = e;
  g.st = st;
  g.k = k;
  g.fronts_any = values ? values[0] : fronts_values[0];
  g.block = values ? values[2] : block_values[0];
  int loops = 0;
  const int one_block = values && values[1] && one_block_fits(items, n, &loops) && loops > 0;
  g.base = variant_fresh_name(v, arena_printf(v->a, "%s_p", k->name));
  g.fr = arena_printf(v->a, "%s_fr", g.base);
  g.frame = arena_alloc(v->a, (size_t)k->nvars + 1);
  g.red_var = -1;
  mark_frame(&g, items, n);
  for (int i = 0; i < k->nvars; i++)
    g.nframe += g.frame[i];
  /* the host's statements, as lines at the entry's top level */
  strbuf host = {0}, out = {0};
  const char *stream = st->stream ? st->stream : "0";
  if (g.nframe) {
    sb_printf(&host, "  %s_frame *%s = NULL;\n", g.base, g.fr);
    sb_printf(&host, "  cudaMallocAsync((void **)&%s, sizeof(%s_frame), %s);\n", g.fr, g.base, stream);
  }
  if (one_block) {
    /* the items in one kernel of one block, which the host launches once: its head and the
     * launch as any kernel's, then the items as functions it calls (g.one_block), which
     * precede it in the file */
    const char *name = arena_printf(v->a, "%s_block", g.base);
    strbuf head = {0}, body = {0};
    kernel_head(&g, name,
                arena_printf(v->a, "the whole kernel in one block of %d threads: its host loops here, each launch "
                                   "a call and a barrier",
                             ONE_BLOCK),
                NULL, ONE_BLOCK, &head);
    launch(&g, name, "1", arena_printf(v->a, "%d", ONE_BLOCK), NULL, &host, 1);
    g.one_block = 1;
    gen_items(&g, items, n, &body, 1);
    sb_printf(&g.kernels, "%s%s}\n\n", head.s, body.s ? body.s : "");
    sb_free(&head);
    sb_free(&body);
  } else
    gen_items(&g, items, n, &host, 1);
  if (g.nframe)
    sb_printf(&host, "  cudaFreeAsync(%s, %s);\n", g.fr, stream);
  if (g.nframe) {
    sb_printf(&out, "// kfuse parallelize of %s: the scalars its launches share, in device memory\nstruct %s_frame {\n",
              k->name, g.base);
    for (int i = 0; i < k->nvars; i++)
      if (g.frame[i])
        sb_printf(&out, "  %s %s;\n", vtype(&g, i), member(&g, i));
    unsigned char *done = arena_alloc(v->a, (size_t)k->nvars + 1);
    if (!g.one_block) /* one block has no blocks' partial results */
      red_slots(&g, items, n, &out, done);
    sb_puts(&out, "};\n\n");
  }
  sb_puts(&out, g.kernels.s ? g.kernels.s : "");
  const char *nl = strchr(host.s, '\n');
  int ok;
  if (!g.nframe && nl && !nl[1] && nl[-1] == ';' && !strchr(host.s, '{')) {
    /* one launch and no frame: the launch alone, in place of the launch */
    const char *first = host.s + strspn(host.s, " ");
    ok = variant_replace_step(v, site->entry, st, arena_strndup(v->a, first, (size_t)(nl - 1 - first)));
  } else {
    /* the statements in place of the launch's (so that the passes after this one, which see
     * the entry's top-level steps, see these launches), else in a block in its place */
    strbuf block = {0};
    sb_puts(&block, "do {\n");
    for (const char *l = host.s; *l; l = strchr(l, '\n') + 1)
      sb_printf(&block, "  %.*s", (int)(strchr(l, '\n') + 1 - l), l);
    sb_puts(&block, "  } while (0)");
    ok = variant_replace_statement(v, site->entry, st, host.s) || variant_replace_step(v, site->entry, st, block.s);
    sb_free(&block);
  }
  if (ok) {
    if (!g.one_block)
      variant_add_helper(v, "kfuse_par_blocks", helper);
    if (has_red(items, n))
      variant_add_include(v, "<math.h>");
    const char *fronts = g.nwaves && g.fronts_any ? ",fronts=1" : "";
    if (g.one_block)
      variant_note(v, arena_printf(v->a, "parallelize@%s#%d(oneblock=1)", e->name, site->first_step),
                   arena_printf(v->a, "parallelize: %s -> %d kernels (%d parallel) in one block of %d threads",
                                site->what, g.nkernels, p.nparallel, ONE_BLOCK));
    else
      variant_note(v, arena_printf(v->a, "parallelize@%s#%d(block=%d%s)", e->name, site->first_step, g.block, fronts),
                   arena_printf(v->a, "parallelize: %s -> %d kernels (%d parallel), block %d%s", site->what,
                                g.nkernels, p.nparallel, g.block, *fronts ? ", every wavefront in one block" : ""));
    variant_add_kernel(v, site->entry, g.base, out.s);
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "parallelize: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&host);
  sb_free(&out);
  sb_free(&g.kernels);
  return ok;
}

const pass pass_parallelize = {
    "parallelize",
    "turn a one-thread kernel's independent loops into grids, its reductions into trees",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    REPARSE_ONLY, /* the passes after it work on its kernels, parsed again */
};
