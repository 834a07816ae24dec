/*
 * coarsen.c: each thread does the work of the threads at its place in `blocks` consecutive
 * blocks, their window loops jammed so that their loads are in flight together.
 *
 * A reference that gives each thread one output and a short loop for it (041's MaxPool1d:
 * K = 8 loads of a window, then one store) keeps one load in flight a thread, and each load
 * waits for the index arithmetic before it:
 *
 *   int idx = blockIdx.x * blockDim.x + threadIdx.x;  if (idx >= total) return;
 *   int o = idx % Lout, nc = idx / Lout;  const float *row = x + nc * L;  float m = -INFINITY;
 *   for (int k = 0; k < K; ++k) { int pos = o * S - P + k * dil; if (...) m = fmaxf(m, row[pos]); }
 *   y[idx] = m;
 *
 * The pass launches 1/U of the blocks (U = `blocks`) and lets thread t of block b do what
 * thread t of blocks b * U + u did, for u = 0 ... U - 1: every `blockIdx.x` of the body is
 * read as that block's index, `gridDim.x` as the reference's grid, and a block past the
 * reference's grid does nothing. The statements between loops run once for each u; a loop
 * whose bounds are the same for every u runs once, its body once for each u at every step
 * (unroll and jam), so that the U threads' loads of one step go out together:
 *
 *   int idx[4]; ... float m[4]; bool kf_live[4];
 *   #pragma unroll
 *   for (int kf_u = 0; kf_u < 4; kf_u++) {
 *     kf_live[kf_u] = blockIdx.x * 4u + kf_u < kf_grid_x;  if (!kf_live[kf_u]) continue;
 *     idx[kf_u] = (blockIdx.x * 4u + kf_u) * blockDim.x + threadIdx.x;
 *     if (idx[kf_u] >= total) { kf_live[kf_u] = false; continue; }   (a `return`)
 *     ...
 *   }
 *   for (int k = 0; k < K; ++k)
 *   #pragma unroll
 *     for (int kf_u = 0; kf_u < 4; kf_u++) { if (!kf_live[kf_u]) continue; <the body> }
 *   #pragma unroll
 *   for (int kf_u = 0; kf_u < 4; kf_u++) { if (!kf_live[kf_u]) continue; y[idx[kf_u]] = m[kf_u]; }
 *
 * Each of the U blocks' threads keeps its own values (the locals declared at the top level
 * become arrays of U, indexed by kf_u in loops nvcc unrolls, so they stay in registers);
 * locals that are the same for every u (declared once from the parameters, constants and
 * builtins other than blockIdx.x and gridDim.x, never assigned) are declared once. The
 * threads of a block still read consecutive places for each u, as the reference's did.
 * Every thread computes what it did in the reference, with the same operations in the same
 * order: the result is the reference's, bit for bit.
 *
 * The loops of different u now interleave; that is legal because they are different
 * threads of the reference, whose order the reference does not fix either: the pass takes
 * no kernel whose threads share memory through barriers, warp functions or atomics.
 *
 * Legal when (checked on the model; otherwise nothing changes and -R says why):
 *   - the kernel is lifted and no template, names blockIdx.x, uses no shared memory,
 *     barrier, warp function or atomic, and its launch (no other pass changed it) is a
 *     top-level launch of the entry;
 *   - its top-level statements (a last `if (c) {...}` without else read as `if (!c)
 *     return;` and its body) declare no local array and no two variables of one name, and
 *     no type spelled with auto or a reference;
 *   - a `return` is in no loop: it ends that u's work (kf_live);
 *   - at least one top-level loop is jammed: canonical (`for (T j = lo; j < hi; j += s)`,
 *     j declared there), its bounds named of parameters, constants, the builtins that are
 *     the same for every u and the locals above, its body neither returning nor breaking
 *     out of it nor assigning j, and reading a buffer (a window loop). Other loops run
 *     once for each u, as statements.
 * Hoist: a condition of an if without else or of a select at the top level of a jammed
 * loop's body that compares signed integers affine in the loop variable (`pos >= 0 && pos
 * < L`, pos = start + k * dil) holds at every step when it holds at the first and the last
 * (each comparison is monotone in the step); with hoist=1 it is checked there once, for
 * every u, and the loop runs without it when it holds (docs/passes/coarsen.md).
 * Parameters: blocks (4, 2, 1): 1 keeps the launch, so that the tuner measures the variant
 * without the pass; hoist (1, 0).
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "fast_divide.h"
#include "pass.h"
#include "reduce.h"

enum { MAX_SEGS = 32 };

/* The builtins that differ between the U blocks a thread stands for. */
static const unsigned PER_BLOCK = 1u << KB_BID_X | 1u << KB_GDIM_X;

enum { MAX_HOIST = 8, MAX_BODY = 32 };

typedef struct seg {
  const kstmt **stmts;          /* statements run once for each u */
  int n;
  const kstmt *loop;            /* or a jammed loop */
  /* its window conditions: the conditions of ifs and selects in the body that compare
   * values affine in the loop variable, hoisted out of the loop with hoist=1 */
  const kexpr *cond[MAX_HOIST];
  int ncond;
  const kstmt *local[MAX_BODY]; /* the body's own locals they name, substituted */
  int nlocal;
} seg;

typedef struct coarse {
  const kkernel *k;
  const kstmt *top[RED_MAX_TOP];/* the top level, the last guard's body unwrapped */
  int ntop;
  const kstmt *guard;           /* that guard `if (c) {...}`, printed as if (!c) return; */
  unsigned char *per_u;         /* by var: a top-level local, an array of U */
  unsigned char *uniform;       /* by var: a top-level local declared once */
  const char **etype;           /* by var: a per-u local's type as an array element */
  seg segs[MAX_SEGS];
  int nsegs;
  int jammed;
  int windows;                  /* jammed loops with window conditions */
} coarse;

/* The form of the last launch match() took. */
static coarse form;

/* Whether e is the same for every u: literals, constants, parameters, builtins other than
 * blockIdx.x and gridDim.x, and uniform locals, combined without loads or calls. */
static int uniform_expr(const coarse *c, const kexpr *e) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_INT:
  case KE_FLT:
  case KE_CONST:
  case KE_PARAM: return 1;
  case KE_BUILTIN: return !(PER_BLOCK >> e->builtin & 1u);
  case KE_VAR: return c->uniform[e->var];
  case KE_UNARY:
  case KE_BINARY:
  case KE_SELECT:
  case KE_CAST:
  case KE_MEMBER: return uniform_expr(c, e->a) && uniform_expr(c, e->b) && uniform_expr(c, e->c);
  default: return 0;
  }
}

static int is_load(const kexpr *e, const void *ctx) {
  (void)ctx;
  return e->kind == KE_LOAD;
}

static int loads(const kexpr *e, const void *ctx) { return kx_any(e, is_load, ctx); }

/* Whether statement s (nested ones included) loads a buffer. */
static int stmt_loads(const kstmt *s) { return kst_any(s, NULL, loads, NULL); }

/* Whether a loop header in s (nested statements included) assigns a per-u local: the
 * printer writes headers without the hooks. */
static int header_assigns(const coarse *c, const kstmt *s) {
  if (!s)
    return 0;
  if (s->kind == KST_FOR)
    for (int i = 0; i < 2; i++) {
      const kstmt *h = i ? s->step : s->init;
      if (h && (h->kind == KST_ASSIGN || h->kind == KST_DECL) && c->per_u[h->var])
        return 1;
    }
  for (int i = 0; i < s->nbody; i++)
    if (header_assigns(c, s->body[i]))
      return 1;
  return header_assigns(c, s->then) || header_assigns(c, s->orelse);
}

/* Whether top-level loop s can be jammed (the file's head says when). */
static int jammable(const coarse *c, const kstmt *s) {
  return s->kind == KST_FOR && s->loop_var >= 0 && s->lo && s->hi && s->stride && s->then && s->init &&
         s->init->kind == KST_DECL && s->init->var == s->loop_var && uniform_expr(c, s->lo) &&
         uniform_expr(c, s->hi) && uniform_expr(c, s->stride) && !kst_holds(s->then, 1u << KST_RETURN, 0) &&
         !kst_holds(s->then, 1u << KST_BREAK, 1) && !kst_assigns(s->then, s->loop_var) && stmt_loads(s->then);
}

/* A declaration's type as an array element: without a const of its own (a pointer's
 * trailing const, or a leading one where the type is no pointer); NULL when it cannot be
 * one (auto, a reference). */
static const char *element_type(arena *a, const char *t) {
  if (strstr(t, "auto") || strchr(t, '&'))
    return NULL;
  const char *star = strrchr(t, '*');
  if (!star)
    return k_unconst(t);
  size_t n = strlen(t);
  while (n && t[n - 1] == ' ')
    n--;
  if (n >= 5 && !strncmp(t + n - 5, "const", 5) && t + n - 5 > star)
    return arena_printf(a, "%.*s", (int)(t + n - 5 - t), t);
  return t;
}

/* ---- the window's bounds ---- */

/* The declaration of body local var among L's substitutable ones, or NULL. */
static const kstmt *body_local(const seg *L, int var) {
  for (int i = 0; i < L->nlocal; i++)
    if (L->local[i]->var == var)
      return L->local[i];
  return NULL;
}

/* Whether e is the same at every step of L: literals, constants, parameters, builtins,
 * locals the loop body does not assign, and the body's own single-definition locals of
 * such values, without loads or calls. */
static int invariant(const coarse *c, const seg *L, const kexpr *e) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_INT:
  case KE_FLT:
  case KE_CONST:
  case KE_PARAM:
  case KE_BUILTIN: return 1;
  case KE_VAR: {
    const kstmt *d = body_local(L, e->var);
    if (d)
      return invariant(c, L, d->value);
    return e->var != L->loop->loop_var && (c->per_u[e->var] || c->uniform[e->var]) &&
           !kst_assigns(L->loop->then, e->var);
  }
  case KE_UNARY:
  case KE_BINARY:
  case KE_SELECT:
  case KE_CAST:
  case KE_MEMBER: return invariant(c, L, e->a) && invariant(c, L, e->b) && invariant(c, L, e->c);
  default: return 0;
  }
}

static int is_signed(ktype t) { return t == KT_I8 || t == KT_I16 || t == KT_I32 || t == KT_I64; }

/* Whether e is a signed integer affine in L's loop variable: a + b * j with a and b
 * invariant, through sums, differences, negations, products by an invariant, casts to a
 * signed type and the body's own single-definition locals (a wrapped unsigned value is
 * not monotone in j; a signed one that overflows is undefined in the reference too). */
static int affine(const coarse *c, const seg *L, const kexpr *e) {
  if (!e || !is_signed(e->type))
    return 0;
  if (invariant(c, L, e))
    return 1;
  switch (e->kind) {
  case KE_VAR: {
    const kstmt *d = body_local(L, e->var);
    return d ? affine(c, L, d->value) : e->var == L->loop->loop_var;
  }
  case KE_CAST: return is_signed(e->a->type) && affine(c, L, e->a);
  case KE_UNARY: return (e->op == KO_NEG || e->op == KO_PLUS) && affine(c, L, e->a);
  case KE_BINARY:
    if (e->op == KO_ADD || e->op == KO_SUB)
      return affine(c, L, e->a) && affine(c, L, e->b);
    if (e->op == KO_MUL)
      return (invariant(c, L, e->a) && affine(c, L, e->b)) || (affine(c, L, e->a) && invariant(c, L, e->b));
    return 0;
  default: return 0;
  }
}

/* Whether cond is a conjunction of <, <=, >, >= between integers affine in the loop
 * variable, at least one naming it: each comparison is then monotone over the steps, and
 * holds at every step when it holds at the first and the last. */
static int window_cond(const coarse *c, const seg *L, const kexpr *e) {
  if (!e)
    return 0;
  if (e->kind == KE_BINARY && e->op == KO_LAND)
    return window_cond(c, L, e->a) && window_cond(c, L, e->b);
  return e->kind == KE_BINARY && (e->op == KO_LT || e->op == KO_LE || e->op == KO_GT || e->op == KO_GE) &&
         affine(c, L, e->a) && affine(c, L, e->b) && !(invariant(c, L, e->a) && invariant(c, L, e->b));
}

/* The selects among e whose conditions are window conditions, into L (not below another
 * select's branches: one hoisted select at a time). */
static void window_selects(const coarse *c, seg *L, const kexpr *e) {
  if (!e)
    return;
  if (e->kind == KE_SELECT && L->ncond < MAX_HOIST && window_cond(c, L, e->a)) {
    L->cond[L->ncond++] = e->a;
    return;
  }
  for (int i = 0; i < e->nargs; i++)
    window_selects(c, L, e->args[i]);
  window_selects(c, L, e->a);
  window_selects(c, L, e->b);
  window_selects(c, L, e->c);
}

/* The window conditions of jammed loop L's body, at its top level: an if's without else
 * and the selects in its statements' values, after the body's own single-definition locals
 * that precede them. Only for a stride that is a positive integer literal. */
static void find_windows(const coarse *c, seg *L) {
  const kexpr *st = kx_strip(L->loop->stride);
  if (!st || st->kind != KE_INT || st->ival <= 0)
    return;
  const kstmt *items[MAX_BODY];
  int n = 0;
  kst_flatten(L->loop->then, items, &n, MAX_BODY);
  for (int i = 0; i < n && i < MAX_BODY; i++) {
    const kstmt *s = items[i];
    if (s->kind == KST_DECL && s->value && !c->k->vars[s->var].nassign && c->k->vars[s->var].kind == KV_LOCAL &&
        L->nlocal < MAX_BODY)
      L->local[L->nlocal++] = s;
    if (s->kind == KST_IF && !s->orelse && L->ncond < MAX_HOIST && window_cond(c, L, s->cond))
      L->cond[L->ncond++] = s->cond;
    else if (s->kind == KST_DECL || s->kind == KST_ASSIGN || s->kind == KST_STORE)
      window_selects(c, L, s->value);
  }
}

static const char *match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **kp, int *quiet) {
  (void)e;
  coarse *c = &form;
  memset(c, 0, sizeof *c);
  *quiet = 1;
  if (st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  *kp = k;
  c->k = k;
  if (!k->body || k->is_template || st->nargs != k->nparams)
    return "is opaque, a template, or launched with other arguments than its parameters";
  if (k->uses_shared || k->uses_sync || k->uses_warp || k->uses_atomics)
    return "uses shared memory, barriers, warp functions or atomics";
  if (!kst_uses_builtins(k->body, 1u << KB_BID_X))
    return "does not name blockIdx.x";
  if (!kst_holds(k->body, 1u << KST_FOR, 0))
    return "has no loop"; /* quietly: an elementwise kernel, the pointwise passes' */
  *quiet = 0;
  kst_flatten(k->body, c->top, &c->ntop, RED_MAX_TOP);
  /* a last `if (c) {...}` without else holds the rest: its body is read as top level */
  while (c->ntop > 0 && c->ntop <= RED_MAX_TOP && !c->guard) {
    const kstmt *last = c->top[c->ntop - 1];
    if (last->kind != KST_IF || last->orelse || !kst_holds(last->then, 1u << KST_FOR, 0))
      break;
    c->guard = last; /* stays, as the check of its condition, before its body */
    kst_flatten(last->then, c->top, &c->ntop, RED_MAX_TOP);
  }
  if (c->ntop > RED_MAX_TOP)
    return "has more statements than kfuse follows";
  c->per_u = arena_alloc(m->arena, (size_t)k->nvars + 1);
  c->uniform = arena_alloc(m->arena, (size_t)k->nvars + 1);
  c->etype = arena_alloc(m->arena, sizeof *c->etype * ((size_t)k->nvars + 1));
  for (int i = 0; i < c->ntop; i++) {
    const kstmt *s = c->top[i];
    if (s->kind != KST_DECL)
      continue;
    const kvar *v = &k->vars[s->var];
    if (v->kind == KV_LOOP)
      return "declares a loop's variable before the loop";
    if (v->kind != KV_LOCAL)
      return "declares an array at its top level";
    c->etype[s->var] = element_type(m->arena, v->type_spelling);
    if (!c->etype[s->var])
      return "declares a local of a type with auto or a reference";
    for (int j = 0; j < k->nvars; j++)
      if ((c->per_u[j] || c->uniform[j]) && !strcmp(k->vars[j].name, v->name))
        return "declares two variables of one name";
    if (s->value && !v->nassign && uniform_expr(c, s->value))
      c->uniform[s->var] = 1;
    else
      c->per_u[s->var] = 1;
  }
  const kstmt **run = arena_alloc(m->arena, sizeof *run * (size_t)(c->ntop + 1));
  int nrun = 0;
  for (int i = 0; i <= c->ntop; i++) {
    const kstmt *s = i < c->ntop ? c->top[i] : NULL;
    int jam = s && jammable(c, s);
    if (s && s == c->guard) {
      run[nrun++] = s;
      continue;
    }
    if (s && !jam) {
      if (kst_holds(s, 1u << KST_RETURN, 1) != kst_holds(s, 1u << KST_RETURN, 0))
        return "returns inside a loop";
      if (header_assigns(c, s))
        return "declares a loop's variable before the loop";
      if (!(s->kind == KST_DECL && c->uniform[s->var]))
        run[nrun++] = s;
      continue;
    }
    if (nrun) {
      if (c->nsegs == MAX_SEGS)
        return "has more loops than kfuse follows";
      c->segs[c->nsegs++] = (seg){.stmts = run, .n = nrun};
      run += nrun;
      nrun = 0;
    }
    if (jam) {
      if (c->nsegs == MAX_SEGS)
        return "has more loops than kfuse follows";
      seg *L = &c->segs[c->nsegs++];
      L->loop = s;
      find_windows(c, L);
      c->jammed++;
      c->windows += L->ncond > 0;
    }
  }
  if (!c->jammed)
    return "has no loop at its top level to jam (its bounds the same for every thread, no return or break out "
           "of it, reading a buffer)";
  return NULL;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  return pass_each_launch(v, "coarsen", match, sites, nsites, remarks, d);
}

static const int blocks_values[] = {4, 2, 1};
static const int hoist_values[] = {1, 0};
static const int divide_values[] = {1, 0};
static const pass_param params[] = {
    {"blocks", blocks_values, 3}, {"hoist", hoist_values, 2}, {"divide", divide_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 3;
}

/* ---- the kernel ---- */

typedef struct printing {
  const coarse *C;
  print_hooks hooks;
  int U;
  int hoist;
  const seg *L;                 /* the jammed loop being printed, or NULL */
  int fast;                     /* its window conditions hold: printed as true */
  const char *at;               /* its variable's value, its body's locals substituted */
  const fdiv_set *fdiv;         /* divide=1: the divisions written as multiplies, or NULL */
} printing;

static int hoisted(const printing *p, const kexpr *cond) {
  for (int i = 0; p->L && i < p->L->ncond; i++)
    if (p->L->cond[i] == cond)
      return 1;
  return 0;
}

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  const kkernel *k = p->C->k;
  if (p->at && e->kind == KE_VAR) {
    const kstmt *d = body_local(p->L, e->var);
    if (e->var == p->L->loop->loop_var) {
      sb_printf(b, "(%s)", p->at);
      return 1;
    }
    if (d) {
      sb_putc(b, '(');
      print_expr_with(k, &p->hooks, d->value, b);
      sb_putc(b, ')');
      return 1;
    }
  }
  if (p->fast && e->kind == KE_SELECT && hoisted(p, e->a)) {
    sb_putc(b, '(');
    print_expr_with(k, &p->hooks, e->b, b);
    sb_putc(b, ')');
    return 1;
  }
  if (e->kind == KE_BUILTIN && e->builtin == KB_BID_X) {
    sb_printf(b, "(blockIdx.x * %du + kf_u)", p->U);
    return 1;
  }
  if (e->kind == KE_BUILTIN && e->builtin == KB_GDIM_X) {
    sb_puts(b, "kf_grid_x");
    return 1;
  }
  if (e->kind == KE_VAR && p->C->per_u[e->var]) {
    sb_printf(b, "%s[kf_u]", k->vars[e->var].name);
    return 1;
  }
  if ((e->kind == KE_LOAD || e->kind == KE_ADDR) && e->var >= 0 && p->C->per_u[e->var]) {
    sb_printf(b, "%s%s[kf_u][", e->kind == KE_ADDR ? "&" : "", k->vars[e->var].name);
    print_expr_with(k, &p->hooks, e->a, b);
    sb_putc(b, ']');
    return 1;
  }
  return p->fdiv && fdiv_print(p->fdiv, k, &p->hooks, e, b);
}

static void put(printing *p, const kstmt *s, int depth, strbuf *b);

/* Declarations, assignments and stores of the per-u locals, and returns; with p->fast, an
 * if whose condition is hoisted as its body alone. */
static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  printing *p = ctx;
  const coarse *C = p->C;
  const kkernel *k = C->k;
  if (p->fast && s->kind == KST_IF && hoisted(p, s->cond)) {
    const kstmt *items[MAX_BODY];
    int n = 0;
    kst_flatten(s->then, items, &n, MAX_BODY);
    print_indent(b, depth);
    sb_puts(b, "{ // inside the bounds\n");
    if (n > MAX_BODY || (s->then->kind == KST_BLOCK && s->then->text))
      print_stmt_with(k, &p->hooks, s->then, depth + 1, b);
    else
      for (int i = 0; i < n; i++)
        put(p, items[i], depth + 1, b);
    print_indent(b, depth);
    sb_puts(b, "}\n");
    return 1;
  }
  if (s == C->guard) {
    print_indent(b, depth);
    sb_puts(b, "if (!(");
    print_expr_with(k, &p->hooks, s->cond, b);
    sb_puts(b, ")) { kf_live[kf_u] = false; continue; } // the reference's guard\n");
    return 1;
  }
  if (s->kind == KST_RETURN) {
    print_indent(b, depth);
    sb_puts(b, "{ kf_live[kf_u] = false; continue; } // the reference's thread returns\n");
    return 1;
  }
  if (s->kind == KST_DECL && C->per_u[s->var]) {
    if (s->value) {
      print_indent(b, depth);
      sb_printf(b, "%s[kf_u] = ", k->vars[s->var].name);
      print_expr_with(k, &p->hooks, s->value, b);
      sb_puts(b, ";\n");
    }
    return 1;
  }
  if (s->kind == KST_ASSIGN && C->per_u[s->var]) {
    print_indent(b, depth);
    sb_printf(b, "%s[kf_u]%s%s %s= ", k->vars[s->var].name, s->member ? "." : "", s->member ? s->member : "",
              s->op >= 0 ? kop_text(s->op) : "");
    print_expr_with(k, &p->hooks, s->value, b);
    sb_puts(b, ";\n");
    return 1;
  }
  if (s->kind == KST_STORE && s->array_var >= 0 && C->per_u[s->array_var]) {
    print_indent(b, depth);
    sb_printf(b, "%s[kf_u][", k->vars[s->array_var].name);
    print_expr_with(k, &p->hooks, s->index, b);
    sb_printf(b, "] %s= ", s->op >= 0 ? kop_text(s->op) : "");
    print_expr_with(k, &p->hooks, s->value, b);
    sb_puts(b, ";\n");
    return 1;
  }
  return 0;
}

/* Statement s at depth, the statement hook asked about s itself too. */
static void put(printing *p, const kstmt *s, int depth, strbuf *b) {
  if (!stmt_hook(p, s, b, depth))
    print_stmt_with(p->C->k, &p->hooks, s, depth, b);
}

/* `for (int kf_u = 0; kf_u < U; kf_u++) {` unrolled, skipping the u whose thread is done. */
static void open_u(const printing *p, strbuf *b, int depth) {
  print_indent(b, depth);
  sb_puts(b, "#pragma unroll\n");
  print_indent(b, depth);
  sb_printf(b, "for (int kf_u = 0; kf_u < %d; kf_u++) {\n", p->U);
  print_indent(b, depth + 1);
  sb_puts(b, "if (!kf_live[kf_u]) continue;\n");
}

/* Jammed loop s->loop at depth: the loop once, its body once for each u at every step;
 * with fast, the window conditions printed as holding. */
static void print_jammed(printing *p, const seg *s, int fast, int depth, strbuf *b) {
  const kkernel *k = p->C->k;
  const kstmt *L = s->loop;
  const kvar *jv = &k->vars[L->loop_var];
  print_indent(b, depth);
  sb_printf(b, "for (%s %s = ", jv->type_spelling, jv->name);
  print_expr_with(k, &p->hooks, L->lo, b);
  sb_printf(b, "; %s %s ", jv->name, L->hi_inclusive ? "<=" : "<");
  print_expr_with(k, &p->hooks, L->hi, b);
  sb_printf(b, "; %s += ", jv->name);
  print_expr_with(k, &p->hooks, L->stride, b);
  sb_printf(b, ") { // jammed: the step of every u at once%s\n", fast ? ", inside the bounds" : "");
  open_u(p, b, depth + 1);
  p->L = s;
  p->fast = fast;
  if (L->then->kind == KST_BLOCK && !L->then->text)
    for (int j = 0; j < L->then->nbody; j++)
      put(p, L->then->body[j], depth + 2, b);
  else
    put(p, L->then, depth + 2, b);
  p->L = NULL;
  p->fast = 0;
  print_indent(b, depth + 1);
  sb_puts(b, "}\n");
  print_indent(b, depth);
  sb_puts(b, "}\n");
}

static void print_coarse_body(printing *p, strbuf *b) {
  const coarse *C = p->C;
  const kkernel *k = C->k;
  sb_puts(b, "{\n");
  /* the locals the same for every u, once, in order (they read nothing from memory) */
  for (int i = 0; i < C->ntop; i++)
    if (C->top[i]->kind == KST_DECL && C->uniform[C->top[i]->var])
      put(p, C->top[i], 1, b);
  for (int i = 0; i < C->ntop; i++)
    if (C->top[i]->kind == KST_DECL && C->per_u[C->top[i]->var]) {
      const kvar *v = &k->vars[C->top[i]->var];
      const char *t = C->etype[C->top[i]->var];
      size_t n = strlen(t);
      sb_printf(b, "  %s%s%s[%d];\n", t, n && t[n - 1] == '*' ? "" : " ", v->name, p->U);
    }
  sb_printf(b, "  bool kf_live[%d];\n", p->U);
  sb_puts(b, "#pragma unroll\n");
  sb_printf(b, "  for (int kf_u = 0; kf_u < %d; kf_u++) // the blocks past the reference's grid do nothing\n", p->U);
  sb_printf(b, "    kf_live[kf_u] = blockIdx.x * %du + kf_u < kf_grid_x;\n", p->U);
  for (int i = 0; i < C->nsegs; i++) {
    const seg *s = &C->segs[i];
    if (!s->loop) {
      open_u(p, b, 1);
      for (int j = 0; j < s->n; j++)
        put(p, s->stmts[j], 2, b);
      sb_puts(b, "  }\n");
      continue;
    }
    if (!p->hoist || !s->ncond) {
      print_jammed(p, s, 0, 1, b);
      continue;
    }
    /* the window's bounds checked once: at the first and the last step, for every u */
    const kstmt *L = s->loop;
    const kexpr *st = kx_strip(L->stride);
    strbuf lo = {0}, hi = {0}, last = {0};
    print_expr_with(k, &p->hooks, L->lo, &lo);
    print_expr_with(k, &p->hooks, L->hi, &hi);
    if (st->ival == 1)
      sb_printf(&last, L->hi_inclusive ? "%s" : "(%s) - 1", hi.s);
    else
      sb_printf(&last, "(%s) + ((%s)%s - (%s)) / %lld * %lld", lo.s, hi.s, L->hi_inclusive ? "" : " - 1", lo.s,
                (long long)st->ival, (long long)st->ival);
    sb_puts(b, "  { // the window's bounds checked once, at the loop's first and last step\n");
    sb_printf(b, "    bool kf_inside = (%s) %s (%s);\n", lo.s, L->hi_inclusive ? "<=" : "<", hi.s);
    sb_puts(b, "#pragma unroll\n");
    sb_printf(b, "    for (int kf_u = 0; kf_u < %d; kf_u++)\n", p->U);
    sb_puts(b, "      if (kf_live[kf_u])\n");
    sb_puts(b, "        kf_inside = kf_inside");
    p->L = s;
    for (int c = 0; c < s->ncond; c++)
      for (int end = 0; end < 2; end++) {
        p->at = end ? last.s : lo.s;
        sb_puts(b, " && (");
        print_expr_with(k, &p->hooks, s->cond[c], b);
        sb_putc(b, ')');
      }
    p->at = NULL;
    p->L = NULL;
    sb_puts(b, ";\n    if (kf_inside) {\n");
    print_jammed(p, s, 1, 3, b);
    sb_puts(b, "    } else {\n");
    print_jammed(p, s, 0, 3, b);
    sb_puts(b, "    }\n  }\n");
    sb_free(&lo);
    sb_free(&hi);
    sb_free(&last);
  }
  sb_putc(b, '}');
}

/* The reference's grid with 1/u of its blocks in x (its own y and z). */
static const char GRID_HELPER[] =
    "// kfuse coarsen: a grid of 1/u of the blocks in x, the same y and z\n"
    "static inline dim3 kf_coarsen_grid(dim3 g, unsigned int u) {\n"
    "  g.x = (g.x + u - 1) / u;\n"
    "  return g;\n"
    "}\n";

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  int U = values ? values[0] : blocks_values[0];
  int hoist = values ? values[1] : hoist_values[0];
  int divide = values ? values[2] : divide_values[0];
  if (U <= 1)
    return 1; /* blocks=1: the launch stays as it is */
  const kkernel *k;
  const kstep *st = pass_launch_again(v, site, "coarsen", match, &k, d);
  if (!st)
    return 0;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_x%d", k->name, U));
  hoist = hoist && form.windows;
  fdiv_set fdiv;
  divide = divide && fdiv_find(v->a, k, st, &fdiv); /* else the same variant as without */
  printing p = {&form, {stmt_hook, expr_hook, NULL}, U, hoist, NULL, 0, NULL, divide ? &fdiv : NULL};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0}, grid = {0}, extra = {0};
  sb_printf(&t, "// kfuse coarsen of %s (line %u): a thread for the threads at its place in %d consecutive blocks,\n"
                "// %d loop%s jammed%s%s\n",
            k->name, k->loc.line, U, form.jammed, form.jammed > 1 ? "s" : "",
            hoist ? ", the window's bounds checked once" : "",
            divide ? arena_printf(v->a, ", %d division%s by the launch's values as multiplies (fast-divide)", fdiv.n,
                                  fdiv.n > 1 ? "s" : "")
                   : "");
  sb_printf(&t, "__global__ void %s(", name);
  pass_print_params(k, &t);
  sb_printf(&t, "%sunsigned int kf_grid_x", k->nparams ? ", " : "");
  if (divide)
    fdiv_print_params(&fdiv, &t);
  sb_puts(&t, ") ");
  print_coarse_body(&p, &t);
  sb_putc(&t, '\n');
  sb_printf(&grid, "kf_coarsen_grid(%s, %du)", st->grid, U);
  sb_printf(&extra, ", dim3(%s).x", st->grid);
  if (divide)
    fdiv_print_args(&fdiv, k, st, &extra);
  pass_print_launch_extra(st, name, grid.s, NULL, extra.s, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    if (!variant_has_kernel(v, "kf_coarsen_grid"))
      variant_add_kernel(v, 0, "kf_coarsen_grid", GRID_HELPER);
    if (divide)
      fdiv_add_helper(v);
    variant_note(v,
                 arena_printf(v->a, "coarsen(blocks=%d%s%s)@%s#%d", U, hoist ? ",hoist" : "", divide ? ",divide" : "",
                              e->name, site->first_step),
                 arena_printf(v->a, "coarsen: %s -> %s (%d blocks a thread, %d loop%s jammed%s%s)", site->what, name, U,
                              form.jammed, form.jammed > 1 ? "s" : "", hoist ? ", bounds checked once" : "",
                              divide ? ", fast division" : ""));
    variant_add_kernel(v, site->entry, name, t.s);
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "coarsen: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  sb_free(&grid);
  sb_free(&extra);
  return ok;
}

const pass pass_coarsen = {
    "coarsen",
    "give each thread the threads at its place in consecutive blocks, their window loops jammed",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
