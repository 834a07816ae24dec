/* pointwise.c: the pointwise view of a launch (pointwise.h). */
#include "pointwise.h"

#include <stdlib.h>
#include <string.h>

/* ---- expressions of a kernel ---- */

static const kexpr *strip(const kexpr *e) {
  while (e && e->kind == KE_CAST)
    e = e->a;
  return e;
}

static int is_builtin(const kexpr *e, kbuiltin b) {
  e = strip(e);
  return e && e->kind == KE_BUILTIN && e->builtin == b;
}

/* blockDim.x, or the launch's constant block size `threads` spelled as a number or a
 * named constant (`blockIdx.x * BLOCK`, launched with BLOCK threads) */
static int is_block_dim(const kexpr *e, long long threads) {
  e = strip(e);
  if (is_builtin(e, KB_BDIM_X))
    return 1;
  return e && threads > 0 && (e->kind == KE_INT || e->kind == KE_CONST) && e->ival == threads;
}

/* x * blockDim.x in either order, x a builtin */
static int times_block(const kexpr *e, kbuiltin x, long long threads) {
  e = strip(e);
  return e && e->kind == KE_BINARY && e->op == KO_MUL &&
         ((is_builtin(e->a, x) && is_block_dim(e->b, threads)) || (is_builtin(e->b, x) && is_block_dim(e->a, threads)));
}

int pw_is_linear(const kexpr *e, long long threads) {
  e = strip(e);
  return e && e->kind == KE_BINARY && e->op == KO_ADD &&
         ((times_block(e->a, KB_BID_X, threads) && is_builtin(e->b, KB_TID_X)) ||
          (times_block(e->b, KB_BID_X, threads) && is_builtin(e->a, KB_TID_X)));
}

/* blockDim.x * gridDim.x, in either order */
static int is_grid_stride(const kexpr *e, long long threads) { return times_block(e, KB_GDIM_X, threads); }

/* e, or the initializer of the single-definition local e names (casts aside) */
static const kexpr *defined(const kkernel *k, const kexpr *e) {
  const kexpr *x = strip(e);
  if (x && x->kind == KE_VAR && k->vars[x->var].kind == KV_LOCAL && !k->vars[x->var].nassign && k->vars[x->var].init)
    return k->vars[x->var].init;
  return e;
}

static int is_var(const kexpr *e, int var) {
  e = strip(e);
  return e && e->kind == KE_VAR && e->var == var;
}

/* ---- the body ---- */

static const char *bad_call(const char *name) {
  static const char *const prefixes[] = {"__shfl", "__sync", "atomic", "__ballot", "__any", "__all",
                                         "__activemask", "printf", "clock", "__threadfence",
                                         "__nanosleep", "__match", "__reduce", "cooperative"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
      return prefixes[i];
  return NULL;
}

typedef struct checker {
  const kkernel *k;
  arena *a;
  int elem, row;
  const char *why;
} checker;

static int check_expr(checker *c, const kexpr *e) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_BUILTIN:
    c->why = arena_printf(c->a, "it uses %s outside its element index", kbuiltin_name(e->builtin));
    return 0;
  case KE_LOAD:
    if (e->var >= 0) {
      c->why = arena_printf(c->a, "it reads the array '%s'", c->k->vars[e->var].name);
      return 0;
    }
    return check_expr(c, e->a);
  case KE_ADDR:
    c->why = "it takes a buffer's address";
    return 0;
  case KE_VAR: {
    const kvar *v = &c->k->vars[e->var];
    if (v->kind != KV_LOCAL && e->var != c->elem && e->var != c->row) {
      c->why = arena_printf(c->a, "it uses '%s', which is no scalar local", v->name);
      return 0;
    }
    return 1;
  }
  case KE_PARAM:
    if (c->k->params[e->param].is_pointer) {
      /* passed to a function, or a pointer made from it: memory the element does not name */
      c->why = arena_printf(c->a, "it uses the buffer '%s' other than by loading its element", c->k->params[e->param].name);
      return 0;
    }
    return 1;
  case KE_CALL: {
    const char *bad = bad_call(e->text);
    if (bad) {
      c->why = arena_printf(c->a, "it calls %s", e->text);
      return 0;
    }
    for (int i = 0; i < e->nargs; i++)
      if (!check_expr(c, e->args[i]))
        return 0;
    return 1;
  }
  default:
    return check_expr(c, e->a) && check_expr(c, e->b) && check_expr(c, e->c);
  }
}

static int check_stmt(checker *c, const kstmt *s) {
  if (!s)
    return 1;
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody; i++)
      if (!check_stmt(c, s->body[i]))
        return 0;
    return 1;
  case KST_DECL:
    if (c->k->vars[s->var].kind != KV_LOCAL) {
      c->why = arena_printf(c->a, "it declares the array '%s'", c->k->vars[s->var].name);
      return 0;
    }
    return check_expr(c, s->value);
  case KST_ASSIGN:
    if (s->var == c->elem || s->var == c->row || c->k->vars[s->var].kind != KV_LOCAL) {
      c->why = arena_printf(c->a, "it assigns '%s'", c->k->vars[s->var].name);
      return 0;
    }
    return check_expr(c, s->value);
  case KST_STORE:
    if (s->param < 0) {
      c->why = "it writes an array of its own";
      return 0;
    }
    return check_expr(c, s->index) && check_expr(c, s->value);
  case KST_IF:
    return check_expr(c, s->cond) && check_stmt(c, s->then) && check_stmt(c, s->orelse);
  case KST_FOR:
  case KST_WHILE:
    c->why = "it has a loop";
    return 0;
  case KST_ATOMIC:
    c->why = "it uses atomics";
    return 0;
  case KST_SYNC:
    c->why = "it synchronizes threads";
    return 0;
  case KST_RETURN:
    c->why = "it returns early from its body";
    return 0;
  default:
    c->why = "it has a statement kfuse does not fuse (a call for its effect, break or continue)";
    return 0;
  }
}

/* `elem < n` (or `n > elem`): the bound n, else NULL. */
static kexpr *less_than(kexpr *e, int elem) {
  const kexpr *s = strip(e);
  if (!s || s->kind != KE_BINARY)
    return NULL;
  if (s->op == KO_LT && is_var(s->a, elem))
    return s->b;
  if (s->op == KO_GT && is_var(s->b, elem))
    return s->a;
  return NULL;
}

/* `elem >= n` (or `n <= elem`): the bound n, else NULL. */
static kexpr *at_least(kexpr *e, int elem) {
  const kexpr *s = strip(e);
  if (!s || s->kind != KE_BINARY)
    return NULL;
  if (s->op == KO_GE && is_var(s->a, elem))
    return s->b;
  if (s->op == KO_LE && is_var(s->b, elem))
    return s->a;
  return NULL;
}

static int is_return(const kstmt *s) {
  if (s && s->kind == KST_BLOCK && !s->text && s->nbody == 1)
    s = s->body[0];
  return s && s->kind == KST_RETURN;
}

/* The statements of a block, or the statement itself (in a's memory). */
static void items(const kstmt *s, kstmt ***v, int *n, arena *a) {
  if (s->kind == KST_BLOCK && !s->text) {
    *v = s->body;
    *n = s->nbody;
  } else {
    kstmt **one = arena_alloc(a, sizeof *one);
    one[0] = (kstmt *)s;
    *v = one;
    *n = 1;
  }
}

/* Is the declaration s that of a thread index variable with a linear definition? */
static int linear_decl(const kkernel *k, const kstmt *s, long long threads) {
  return s->kind == KST_DECL && k->vars[s->var].kind == KV_LOCAL && k->vars[s->var].nassign == 0 &&
         pw_is_linear(s->value, threads);
}

/* A declaration before the guard: index arithmetic with no load and no call, and (unless
 * `builtins`: a grid-stride loop's header locals, which the body may not use) no thread or
 * block index: the fused kernel has its own grid. */
static int pure_decl(const kexpr *e, int builtins) {
  if (!e)
    return 1;
  if (e->kind == KE_LOAD || e->kind == KE_CALL || e->kind == KE_ADDR || (e->kind == KE_BUILTIN && !builtins))
    return 0;
  return pure_decl(e->a, builtins) && pure_decl(e->b, builtins) && pure_decl(e->c, builtins);
}

/* Whether e or s names variable var. */
static int expr_mentions(const kexpr *e, int var) {
  if (!e)
    return 0;
  if (e->kind == KE_VAR && e->var == var)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (expr_mentions(e->args[i], var))
      return 1;
  return expr_mentions(e->a, var) || expr_mentions(e->b, var) || expr_mentions(e->c, var);
}

static int stmt_mentions(const kstmt *s, int var) {
  if (!s)
    return 0;
  for (int i = 0; i < s->nbody; i++)
    if (stmt_mentions(s->body[i], var))
      return 1;
  return (s->kind == KST_ASSIGN && s->var == var) || expr_mentions(s->index, var) ||
         expr_mentions(s->value, var) || expr_mentions(s->cond, var) || stmt_mentions(s->init, var) ||
         stmt_mentions(s->step, var) || stmt_mentions(s->then, var) || stmt_mentions(s->orelse, var);
}

/* Finds the guard and the body of k (pointwise.h's three forms). */
static const char *find_shape(const kkernel *k, long long threads, pw_launch *L, arena *a) {
  kstmt **v;
  int n;
  items(k->body, &v, &n, a);
  int i = 0;
  /* [pure declarations] for (int e = linear; e < n; e += blockDim.x * gridDim.x) { body },
   * the stride or the start possibly a local declared before the loop */
  int npre = 0;
  while (npre < n && v[npre]->kind == KST_DECL && pure_decl(v[npre]->value, 1) &&
         k->vars[v[npre]->var].kind == KV_LOCAL && k->vars[v[npre]->var].nassign == 0)
    npre++;
  if (npre == n - 1 && v[npre]->kind == KST_FOR) {
    const kstmt *f = v[npre];
    if (f->loop_var < 0 || !pw_is_linear(defined(k, f->lo), threads) || !f->hi || f->hi_inclusive ||
        !is_grid_stride(defined(k, f->stride), threads))
      return "its loop is no grid-stride loop over a linear thread index";
    L->elem = f->loop_var;
    L->bound = f->hi;
    items(f->then, &L->body, &L->nbody, a);
    /* the declarations serve the loop's header only (the fused kernel has its own grid) */
    for (int j = 0; j < npre; j++)
      for (int b = 0; b < L->nbody; b++)
        if (stmt_mentions(L->body[b], v[j]->var) || expr_mentions(f->hi, v[j]->var))
          return "its loop body uses a local declared before its grid-stride loop";
    return NULL;
  }
  /* the element's declaration, and a two-dimensional launch's row (blockIdx.y), in either
   * order, with index arithmetic after them */
  L->pre = arena_alloc(a, sizeof *L->pre * (size_t)(n + 1));
  for (; i < n && i < 2 && v[i]->kind == KST_DECL && k->vars[v[i]->var].kind == KV_LOCAL &&
         k->vars[v[i]->var].nassign == 0;
       i++) {
    if (L->elem < 0 && linear_decl(k, v[i], threads))
      L->elem = v[i]->var;
    else if (L->row < 0 && is_builtin(v[i]->value, KB_BID_Y))
      L->row = v[i]->var;
    else
      break;
  }
  if (L->elem < 0)
    return "it does not start from a linear thread index (blockIdx.x * blockDim.x + threadIdx.x)";
  while (i < n && v[i]->kind == KST_DECL && pure_decl(v[i]->value, 0) &&
         k->vars[v[i]->var].kind == KV_LOCAL && k->vars[v[i]->var].nassign == 0)
    L->pre[L->npre++] = v[i++];
  if (i >= n || v[i]->kind != KST_IF)
    return "it has no bounds guard on its element index";
  const kstmt *g = v[i];
  /* if (e >= n) return; body */
  kexpr *bound = at_least(g->cond, L->elem);
  if (bound && is_return(g->then) && !g->orelse) {
    L->bound = bound;
    L->body = v + i + 1;
    L->nbody = n - i - 1;
    return NULL;
  }
  /* if (e < n [&& c]) { body } with nothing after */
  if (i + 1 != n || g->orelse)
    return "its bounds guard is followed by more code or has an else";
  const kexpr *c = strip(g->cond);
  bound = less_than(g->cond, L->elem);
  if (!bound && c->kind == KE_BINARY && c->op == KO_LAND && (bound = less_than(c->a, L->elem)))
    L->cond = c->b;
  if (!bound)
    return "its bounds guard is not `index < n`";
  L->bound = bound;
  items(g->then, &L->body, &L->nbody, a);
  return NULL;
}

/* kop and xe_op share their order up to KO_LOR / XO_LOR. */
static xexpr *to_host(const kstep *st, const kexpr *e, arena *a) {
  e = strip(e);
  if (!e)
    return NULL;
  xexpr *x = arena_alloc(a, sizeof *x);
  switch (e->kind) {
  case KE_INT:
    x->kind = XE_INT;
    x->ival = e->ival;
    return x;
  case KE_CONST:
    if (!ktype_is_int(e->type))
      return NULL;
    x->kind = XE_INT;
    x->ival = e->ival;
    return x;
  case KE_PARAM:
    return e->param < st->nargs ? st->args[e->param].value : NULL;
  case KE_UNARY:
    if (e->op != KO_NEG)
      return NULL;
    x->kind = XE_UNARY;
    x->op = XO_NEG;
    return (x->a = to_host(st, e->a, a)) ? x : NULL;
  case KE_BINARY:
    if (e->op < KO_MUL || e->op > KO_LOR)
      return NULL;
    x->kind = XE_BINARY;
    x->op = (int)e->op;
    x->a = to_host(st, e->a, a);
    x->b = x->a ? to_host(st, e->b, a) : NULL;
    return x->b ? x : NULL;
  default:
    return NULL;
  }
}

int pw_analyze(const kmodel *m, const kentry *e, const kstep *st, pw_launch *L, const char **why) {
  memset(L, 0, sizeof *L);
  L->step = st;
  L->elem = -1;
  L->row = -1;
  if (st->kind != KS_LAUNCH || st->kernel < 0) {
    *why = "it is no launch of a kernel of this file";
    return 0;
  }
  const kkernel *k = &m->kernels[st->kernel];
  L->k = k;
  if (!k->body) {
    *why = "its kernel is opaque";
    return 0;
  }
  if (k->is_template) {
    *why = "its kernel is a template";
    return 0;
  }
  if (k->uses_shared || k->uses_sync || k->uses_atomics || k->uses_warp) {
    *why = k->uses_shared ? "its kernel uses shared memory"
           : k->uses_sync ? "its kernel synchronizes threads"
           : k->uses_atomics ? "its kernel uses atomics" : "its kernel uses warp operations";
    return 0;
  }
  if (st->nargs != k->nparams) {
    *why = "its arguments do not match its kernel's parameters";
    return 0;
  }
  if ((*why = find_shape(k, st->block_threads, L, m->arena)) != NULL)
    return 0;
  checker c = {k, m->arena, L->elem, L->row, NULL};
  for (int i = 0; i < L->nbody; i++)
    if (!check_stmt(&c, L->body[i])) {
      *why = c.why;
      return 0;
    }
  if (!check_expr(&c, L->cond) || !check_expr(&c, L->bound)) {
    *why = c.why;
    return 0;
  }
  /* every store at the element itself */
  for (int i = 0; i < k->naccesses; i++)
    if (k->accesses[i].is_store && !pw_at_element(L, i)) {
      *why = arena_printf(m->arena, "it writes '%s' at another index than its element",
                          k->params[k->accesses[i].param].name);
      return 0;
    }
  L->domain = to_host(st, L->bound, m->arena);
  if (!L->domain) {
    *why = "its element count is no integer expression of the entry's scalars";
    return 0;
  }
  if (L->row >= 0) {
    int assigned = 0;
    for (int i = 0; st->grid_var && i < e->nhostvars; i++)
      assigned |= !strcmp(e->hostvars[i].name, st->grid_var) && e->hostvars[i].assigned;
    if (!st->grid_y || assigned) {
      *why = "its rows are blockIdx.y of a grid whose y extent kfuse does not read";
      return 0;
    }
    xexpr *x = arena_alloc(m->arena, sizeof *x);
    memset(x, 0, sizeof *x);
    x->kind = XE_BINARY;
    x->op = XO_MUL;
    x->a = st->grid_y;
    x->b = L->domain;
    L->domain = x;
  }
  const kvar *ev = &k->vars[L->elem];
  L->index_type = ev->type;
  L->index_spelling = ev->type_spelling;
  return 1;
}

/* ---- comparing expressions ---- */

static int same_expr(const kexpr *a, const kexpr *b) {
  a = strip(a);
  b = strip(b);
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind)
    return 0;
  switch (a->kind) {
  case KE_INT: return a->ival == b->ival;
  case KE_FLT: return a->fval == b->fval;
  case KE_PARAM: return a->param == b->param;
  case KE_VAR: return a->var == b->var;
  case KE_BUILTIN: return a->builtin == b->builtin;
  case KE_CONST: return !strcmp(a->text, b->text);
  case KE_UNARY: return a->op == b->op && same_expr(a->a, b->a);
  case KE_BINARY: return a->op == b->op && same_expr(a->a, b->a) && same_expr(a->b, b->b);
  default: return 0;
  }
}

/* r * n + c of a two-dimensional launch, over the definitions (flat_index's form) or the
 * variables themselves, in any order */
static int is_row_major(const pw_launch *L, const kexpr *e) {
  e = strip(e);
  if (!e || e->kind != KE_BINARY || e->op != KO_ADD)
    return 0;
  const kexpr *elem_def = NULL;
  for (int i = 0; i < L->k->ntindex; i++)
    if (L->k->tindex[i].var == L->elem)
      elem_def = L->k->tindex[i].expr;
  for (int side = 0; side < 2; side++) {
    const kexpr *c = side ? e->a : e->b, *rn = strip(side ? e->b : e->a);
    if (!is_var(c, L->elem) && !(elem_def && same_expr(c, elem_def)) && !pw_is_linear(c, L->step->block_threads))
      continue;
    if (!rn || rn->kind != KE_BINARY || rn->op != KO_MUL)
      continue;
    for (int o = 0; o < 2; o++) {
      const kexpr *r = o ? rn->b : rn->a, *nn = o ? rn->a : rn->b;
      if ((is_var(r, L->row) || is_builtin(r, KB_BID_Y)) && same_expr(nn, L->bound))
        return 1;
    }
  }
  return 0;
}

int pw_at_element(const pw_launch *L, int access) {
  const kaccess *x = &L->k->accesses[access];
  if (L->row >= 0)
    return is_row_major(L, x->index) || is_row_major(L, x->flat_index);
  if (is_var(x->index, L->elem) || is_var(x->flat_index, L->elem))
    return 1;
  /* the flattened index is the element index's own (linear) definition */
  for (int i = 0; i < L->k->ntindex; i++)
    if (L->k->tindex[i].var == L->elem)
      return same_expr(x->flat_index, L->k->tindex[i].expr);
  return 0;
}

/* ---- sizes on the host ---- */

typedef struct canon {
  const kentry *e;
  arena *a;
  int depth;
} canon;

static xexpr *xint(arena *a, int64_t v) {
  xexpr *x = arena_alloc(a, sizeof *x);
  x->kind = XE_INT;
  x->ival = v;
  return x;
}

static xexpr *xbin(arena *a, int op, xexpr *l, xexpr *r) {
  xexpr *x = arena_alloc(a, sizeof *x);
  x->kind = XE_BINARY;
  x->op = op;
  x->a = l;
  x->b = r;
  return x;
}

xexpr *pw_times(arena *a, const xexpr *e, int64_t k) { return xbin(a, XO_MUL, (xexpr *)e, xint(a, k)); }

static const char *key_of(arena *a, const xexpr *e) {
  strbuf b = {0};
  xexpr_print(e, &b);
  const char *k = arena_strdup(a, b.s ? b.s : "");
  sb_free(&b);
  return k;
}

/* A term of a sum (sign +-1) or a factor of a product. */
typedef struct part {
  xexpr *e;
  int sign;
  const char *key;
} part;

static int by_key(const void *x, const void *y) {
  const part *p = x, *q = y;
  int c = strcmp(p->key, q->key);
  return c ? c : p->sign - q->sign;
}

static xexpr *canon_of(canon *c, const xexpr *e);

/* Collects the terms of a sum (flattening + and -) or the factors of a product. */
static void collect(canon *c, const xexpr *e, int op, int sign, part **v, int *n, int *cap) {
  if (e->kind == XE_BINARY && op == XO_ADD && (e->op == XO_ADD || e->op == XO_SUB)) {
    collect(c, e->a, op, sign, v, n, cap);
    collect(c, e->b, op, e->op == XO_SUB ? -sign : sign, v, n, cap);
    return;
  }
  if (e->kind == XE_UNARY && op == XO_ADD && e->op == XO_NEG) {
    collect(c, e->a, op, -sign, v, n, cap);
    return;
  }
  if (e->kind == XE_BINARY && op == XO_MUL && e->op == XO_MUL) {
    collect(c, e->a, op, sign, v, n, cap);
    collect(c, e->b, op, sign, v, n, cap);
    return;
  }
  xexpr *x = canon_of(c, e);
  /* a canonical sum or product inside is flattened too */
  if (x->kind == XE_BINARY && ((op == XO_ADD && (x->op == XO_ADD || x->op == XO_SUB)) ||
                               (op == XO_MUL && x->op == XO_MUL)) && x != e) {
    collect(c, x, op, sign, v, n, cap);
    return;
  }
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 8;
    part *nv = arena_alloc(c->a, sizeof *nv * (size_t)*cap);
    if (*n)
      memcpy(nv, *v, sizeof *nv * (size_t)*n);
    *v = nv;
  }
  (*v)[(*n)++] = (part){x, sign, key_of(c->a, x)};
}

static xexpr *canon_list(canon *c, const xexpr *e, int op) {
  part *v = NULL;
  int n = 0, cap = 0;
  collect(c, e, op, 1, &v, &n, &cap);
  int64_t k = op == XO_MUL ? 1 : 0;
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (v[i].e->kind == XE_INT) {
      k = op == XO_MUL ? k * v[i].e->ival : k + v[i].sign * v[i].e->ival;
      continue;
    }
    v[m++] = v[i];
  }
  if (op == XO_MUL && k == 0)
    return xint(c->a, 0);
  qsort(v, (size_t)m, sizeof *v, by_key);
  xexpr *r = NULL;
  for (int i = 0; i < m; i++) {
    if (!r)
      r = v[i].sign < 0 ? xbin(c->a, XO_SUB, xint(c->a, 0), v[i].e) : v[i].e;
    else
      r = xbin(c->a, op == XO_MUL ? XO_MUL : v[i].sign < 0 ? XO_SUB : XO_ADD, r, v[i].e);
  }
  if (!r)
    return xint(c->a, k);
  if (op == XO_MUL && k != 1)
    r = xbin(c->a, XO_MUL, xint(c->a, k), r);
  if (op == XO_ADD && k != 0)
    r = xbin(c->a, XO_ADD, r, xint(c->a, k));
  return r;
}

static xexpr *canon_of(canon *c, const xexpr *e) {
  if (++c->depth > 200) {
    c->depth--;
    return (xexpr *)e;
  }
  xexpr *r = (xexpr *)e;
  switch (e->kind) {
  case XE_NAME:
    for (int i = c->e->nhostvars - 1; i >= 0; i--) {
      const khostvar *v = &c->e->hostvars[i];
      if (!strcmp(v->name, e->name)) {
        if (v->init && !v->assigned)
          r = canon_of(c, v->init);
        break;
      }
    }
    break;
  case XE_UNARY:
  case XE_BINARY:
    if (e->kind == XE_UNARY ? e->op == XO_NEG : (e->op == XO_ADD || e->op == XO_SUB)) {
      r = canon_list(c, e, XO_ADD);
    } else if (e->kind == XE_BINARY && e->op == XO_MUL) {
      r = canon_list(c, e, XO_MUL);
    } else if (e->kind == XE_BINARY) {
      xexpr *a = canon_of(c, e->a), *b = canon_of(c, e->b);
      r = xbin(c->a, e->op, a, b);
      if (a->kind == XE_INT && b->kind == XE_INT) {
        int64_t x = a->ival, y = b->ival;
        switch (e->op) {
        case XO_DIV: if (y) r = xint(c->a, x / y); break;
        case XO_MOD: if (y) r = xint(c->a, x % y); break;
        case XO_SHL: if (y >= 0 && y < 63) r = xint(c->a, x << y); break;
        case XO_SHR: if (y >= 0 && y < 63) r = xint(c->a, x >> y); break;
        default: break;
        }
      }
    } else {
      xexpr *x = arena_alloc(c->a, sizeof *x);
      *x = *e;
      x->a = canon_of(c, e->a);
      r = x;
    }
    break;
  default:
    break;
  }
  c->depth--;
  return r;
}

int pw_same_size(const kentry *e, const xexpr *a, const xexpr *b, arena *ar) {
  if (!a || !b)
    return 0;
  canon c = {e, ar, 0};
  const char *ka = key_of(ar, canon_of(&c, a)), *kb = key_of(ar, canon_of(&c, b));
  return !strcmp(ka, kb);
}
