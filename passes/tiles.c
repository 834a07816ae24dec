/*
 * tiles.c: shared-memory tiles read back as the loads that filled them (tiles.h).
 *
 * The kernel's top level is declarations, one *tile loop* and what follows it (the guard
 * and the store). The tile loop `for (k0 = 0; k0 < K; k0 += T)` holds, in this order:
 * declarations of locals, one staging store per shared array `S[threadIdx.y][threadIdx.x]
 * = c ? L : 0` (or `= L`, L a load of a global buffer), a barrier, the inner loop `for (kk
 * = 0; kk < T; kk += 1)` around one update of the sum, and a barrier. The view is the same
 * kernel with the tile loop replaced by `for (kk = 0; kk < K; kk += 1)` around the update,
 * each read `S[e1][e2]` of it replaced by L with threadIdx.y := e1, threadIdx.x := e2 and
 * k0 := 0, and every local written out (flattened) where it is used.
 *
 * Why that is the same sum, in every thread that stores it:
 *   - The block is T x T (the launch's block, read by the model), each subscript e1, e2 is
 *     threadIdx.x, threadIdx.y or kk (all in [0, T)), and each array's extents are at
 *     least T: the read S[e1][e2] is the element that thread (x = e2, y = e1) of the same
 *     block wrote in the same trip of the tile loop (the barriers order the store, the
 *     reads and the next trip's store), every thread of the block executing the stores
 *     (nothing returns or branches around them: the tile loop is at the top level and its
 *     bound uniform, as the barriers inside it already require of the reference).
 *   - That element is c ? L : 0 evaluated as that thread, i.e. with the substitution.
 *   - Every index of L and every condition of c depends on k0 and kk only through k0 + kk
 *     (equal coefficients): L at (k0, kk) is L at (0, k0 + kk). The trips cover k = k0 +
 *     kk over [0, T * ceil(K / T)).
 *   - Each conjunct of c either is one of the store's guard's (true in a thread that
 *     stores) or is k0 + kk < K, K the tile loop's bound; both staged factors have the
 *     latter, so a product is 0 beyond K and L beyond K is never read by the view. Summed,
 *     the products over k in [0, K), as the view sums them (in another order).
 */
#include <string.h>

#include "../lib/arena.h"
#include "poly.h"
#include "reduce.h"
#include "tiles.h"

enum { MAX_STAGES = 4, MAX_GUARDS = 8, MAX_TOP = 32 };

typedef struct tiles {
  const kmodel *m;
  const kkernel *k;
  atoms A;
  pctx pc;
  int k0, kk;                   /* the tile loop's variable, the inner loop's */
  int a_k0, a_kk;               /* ... as atoms */
  poly T, K;                    /* the tile; the tile loop's bound */
  const kstmt *stage[MAX_STAGES]; /* the staging stores */
  int nstage;
  poly guard[MAX_GUARDS];       /* the store's guard: its conjuncts as d >= 0 */
  int nguard;
  /* the substitution: threadIdx.y and threadIdx.x (NULL: themselves), k0 (NULL: itself) */
  const kexpr *ty, *tx, *k0v;
  int acc;
  int tiled;                    /* the tile loop has the form (stores, barrier, loop, barrier) */
  const char *why;
} tiles;

static kexpr *int_expr(tiles *t, long long v) {
  kexpr *e = arena_alloc(t->m->arena, sizeof *e);
  memset(e, 0, sizeof *e);
  e->kind = KE_INT;
  e->ival = v;
  e->text = arena_printf(t->m->arena, "%lld", v);
  e->type = KT_I32;
  e->type_spelling = "int";
  e->param = e->var = e->access = -1;
  return e;
}

static int is_shared(const tiles *t, int var) { return var >= 0 && t->k->vars[var].kind == KV_SHARED; }

/* e with the substitution applied and every single-definition local written out. NULL (and
 * t->why) when e reads what that cannot follow. `reads`: how a shared load is replaced
 * (NULL: refused). */
static kexpr *subst(tiles *t, const kexpr *e, kexpr *(*reads)(tiles *, const kexpr *), int depth) {
  if (!e || t->why)
    return NULL;
  if (depth > 48) {
    t->why = "has locals defined too deep for kfuse to follow";
    return NULL;
  }
  switch (e->kind) {
  case KE_INT:
  case KE_FLT:
  case KE_PARAM:
  case KE_CONST: return (kexpr *)e;
  case KE_BUILTIN:
    if (e->builtin == KB_TID_Y && t->ty)
      return (kexpr *)t->ty;
    if (e->builtin == KB_TID_X && t->tx)
      return (kexpr *)t->tx;
    return (kexpr *)e;
  case KE_VAR: {
    const kvar *v = &t->k->vars[e->var];
    if (e->var == t->k0)
      return t->k0v ? (kexpr *)t->k0v : (kexpr *)e;
    if (e->var == t->kk || e->var == t->acc)
      return (kexpr *)e;
    if (v->kind == KV_LOCAL && !v->nassign && v->init)
      return subst(t, v->init, reads, depth + 1);
    t->why = "stages or sums a local it assigns";
    return NULL;
  }
  case KE_LOAD:
    if (is_shared(t, e->var)) {
      if (reads)
        return reads(t, e);
      t->why = "stages a value read from shared memory";
      return NULL;
    }
    if (e->param < 0 || t->k->accesses[e->access].var >= 0) {
      t->why = "reads through a pointer local or a local array";
      return NULL;
    }
    break;
  case KE_ADDR:
    t->why = "takes an address";
    return NULL;
  default: break;
  }
  kexpr *c = arena_alloc(t->m->arena, sizeof *c);
  *c = *e;
  c->a = subst(t, e->a, reads, depth);
  c->b = subst(t, e->b, reads, depth);
  c->c = subst(t, e->c, reads, depth);
  if (e->nargs) {
    c->args = arena_alloc(t->m->arena, sizeof *c->args * (size_t)e->nargs);
    for (int i = 0; i < e->nargs; i++)
      c->args[i] = subst(t, e->args[i], reads, depth);
  }
  return t->why ? NULL : c;
}

static kexpr *flat(tiles *t, const kexpr *e) { return subst(t, e, NULL, 0); }

/* A comparison (negated: the condition to go on of one that skips) as d >= 0. */
static int nonneg(tiles *t, const kexpr *e, int negate, poly *d) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY)
    return 0;
  int op = e->op;
  if (negate)
    op = op == KO_LT ? KO_GE : op == KO_GE ? KO_LT : op == KO_GT ? KO_LE : op == KO_LE ? KO_GT : -1;
  poly a, b, one;
  kpoly(&t->pc, e->a, &a);
  kpoly(&t->pc, e->b, &b);
  p_const(&one, 1);
  if (op == KO_GE || op == KO_GT)
    p_add(d, &a, &b, -1);
  else if (op == KO_LE || op == KO_LT)
    p_add(d, &b, &a, -1);
  else
    return 0;
  if (op == KO_GT || op == KO_LT)
    p_add(d, d, &one, -1);
  return !d->bad;
}

/* The guard's conjuncts (`negate`: of a condition that skips, its disjuncts negated). */
static const char *guards(tiles *t, const kexpr *e, int negate) {
  e = kx_strip(e);
  if (e && e->kind == KE_BINARY && e->op == (negate ? KO_LOR : KO_LAND)) {
    const char *why = guards(t, e->a, negate);
    return why ? why : guards(t, e->b, negate);
  }
  if (t->nguard == MAX_GUARDS || !nonneg(t, e, negate, &t->guard[t->nguard]))
    return "has a guard kfuse does not read";
  t->nguard++;
  return NULL;
}

/* Whether p depends on k0 and kk only through k0 + kk; *at0 is p at k0 = 0. */
static int through_sum(const tiles *t, const poly *p, poly *at0) {
  poly q0, q1, r1;
  if (p->bad || !p_coef(p, t->a_k0, &q0, at0) || !p_coef(at0, t->a_kk, &q1, &r1))
    return 0;
  return !p_has(&q0, t->a_kk) && p_equal(&q0, &q1);
}

/* Checks the staged value's condition c (at the reading thread): each conjunct the
 * store's guard or k0 + kk < K. *bounded: one was the latter. */
static const char *staged_cond(tiles *t, const kexpr *c, int *bounded) {
  c = kx_strip(c);
  if (c && c->kind == KE_BINARY && c->op == KO_LAND) {
    const char *why = staged_cond(t, c->a, bounded);
    return why ? why : staged_cond(t, c->b, bounded);
  }
  poly d, d0, kb, one, kkp;
  if (!nonneg(t, c, 0, &d))
    return "stages a tile under a condition kfuse does not read";
  if (!through_sum(t, &d, &d0))
    return "stages a tile under a condition that depends on other than its k (the tile loop's variable plus "
           "the inner loop's)";
  p_const(&one, 1);
  p_atom(&kkp, t->a_kk);
  p_add(&kb, &t->K, &one, -1);
  p_add(&kb, &kb, &kkp, -1); /* K - 1 - kk */
  if (p_equal(&d0, &kb)) {
    *bounded = 1;
    return NULL;
  }
  for (int i = 0; i < t->nguard; i++)
    if (p_equal(&d0, &t->guard[i]))
      return NULL;
  return "stages a tile under a condition its store's guard does not imply";
}


/* Whether e is threadIdx.x, threadIdx.y or kk (or a local holding one): a subscript in
 * [0, T). */
static int subscript(const tiles *t, const kexpr *e) {
  e = kx_resolve(t->k, kx_strip(e), -1);
  return kx_is_builtin(e, KB_TID_X) || kx_is_builtin(e, KB_TID_Y) || kx_is_var(e, t->kk);
}

/* Extent d of array v (a literal, or an expression of template parameters). */
static void extent(tiles *t, const kvar *v, int d, poly *out) {
  if (v->dim_exprs)
    kpoly(&t->pc, v->dim_exprs[d], out);
  else
    p_const(out, v->dims[d]);
}

/* A read S[e1][e2] of the inner loop: the load that staged it, as the thread (e2, e1). */
static kexpr *read_back(tiles *t, const kexpr *e) {
  const kstmt *st = NULL;
  for (int i = 0; i < t->nstage; i++)
    if (t->stage[i]->array_var == e->var)
      st = t->stage[i];
  const kvar *v = &t->k->vars[e->var];
  const kexpr *ix = kx_strip(e->a), *mul = ix && ix->kind == KE_BINARY && ix->op == KO_ADD ? kx_strip(ix->a) : NULL;
  if (!st) {
    t->why = "reads a shared array it does not stage";
    return NULL;
  }
  poly ext, d1;
  if (mul && mul->kind == KE_BINARY && mul->op == KO_MUL)
    kpoly(&t->pc, mul->b, &ext);
  extent(t, v, 1, &d1);
  if (!mul || mul->kind != KE_BINARY || mul->op != KO_MUL || !p_equal(&ext, &d1) || !subscript(t, mul->a) ||
      !subscript(t, ix->b)) {
    t->why = "reads a tile at other than threadIdx.x, threadIdx.y or the inner loop's variable";
    return NULL;
  }
  t->ty = kx_strip(kx_resolve(t->k, kx_strip(mul->a), -1));
  t->tx = kx_strip(kx_resolve(t->k, kx_strip(ix->b), -1));
  t->k0v = NULL;
  const kexpr *val = subst(t, st->value, NULL, 0), *cond = NULL;
  if (!val)
    return NULL;
  const kexpr *sv = kx_float_strip(val);
  if (sv && sv->kind == KE_SELECT) {
    if (!kx_is_zero(sv->c)) {
      t->why = "stages a choice other than a load or 0";
      return NULL;
    }
    cond = sv->a;
    val = sv->b;
  }
  const kexpr *ld = kx_float_strip(val);
  poly ip, ip0;
  int bounded = 0;
  if (!ld || ld->kind != KE_LOAD || t->k->params[ld->param].type != KT_F32) {
    t->why = "stages other than a float load";
    return NULL;
  }
  kpoly(&t->pc, ld->a, &ip);
  if (!through_sum(t, &ip, &ip0)) {
    t->why = "stages a tile at an index that depends on other than its k (the tile loop's variable plus the "
             "inner loop's)";
    return NULL;
  }
  if (cond && (t->why = staged_cond(t, cond, &bounded)) != NULL)
    return NULL;
  if (!bounded) {
    t->why = "stages a tile without bounding its k (the tile loop's variable plus the inner loop's) by the "
             "tile loop's extent";
    return NULL;
  }
  t->ty = t->tx = NULL; /* (ld is substituted already) */
  t->k0v = int_expr(t, 0);
  kexpr *r = subst(t, ld, NULL, 0);
  t->k0v = NULL;
  return r;
}

/* Whether statement s (nested ones included) touches shared memory or waits at a barrier. */
static int shares(const tiles *t, const kstmt *s);

static int expr_shares(const tiles *t, const kexpr *e) {
  if (!e)
    return 0;
  if (e->kind == KE_LOAD && is_shared(t, e->var))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (expr_shares(t, e->args[i]))
      return 1;
  return expr_shares(t, e->a) || expr_shares(t, e->b) || expr_shares(t, e->c);
}

static int shares(const tiles *t, const kstmt *s) {
  if (!s)
    return 0;
  if (s->kind == KST_SYNC || ((s->kind == KST_STORE || s->kind == KST_ATOMIC) && is_shared(t, s->array_var)))
    return 1;
  if (expr_shares(t, s->value) || expr_shares(t, s->cond) || expr_shares(t, s->index) || expr_shares(t, s->lo) ||
      expr_shares(t, s->hi) || expr_shares(t, s->stride))
    return 1;
  for (int i = 0; i < s->nbody; i++)
    if (shares(t, s->body[i]))
      return 1;
  return shares(t, s->init) || shares(t, s->step) || shares(t, s->then) || shares(t, s->orelse);
}

/* A statement of the top level (after the tile loop) with its locals written out. */
static kstmt *flat_stmt(tiles *t, const kstmt *s) {
  if (!s || t->why)
    return NULL;
  kstmt *c = arena_alloc(t->m->arena, sizeof *c);
  *c = *s;
  switch (s->kind) {
  case KST_BLOCK:
    c->body = arena_alloc(t->m->arena, sizeof *c->body * (size_t)(s->nbody ? s->nbody : 1));
    c->cap_body = s->nbody;
    for (int i = 0; i < s->nbody; i++)
      c->body[i] = flat_stmt(t, s->body[i]);
    break;
  case KST_IF:
    c->cond = flat(t, s->cond);
    c->then = flat_stmt(t, s->then);
    c->orelse = s->orelse ? flat_stmt(t, s->orelse) : NULL;
    break;
  case KST_STORE:
    c->index = flat(t, s->index);
    c->value = flat(t, s->value);
    break;
  case KST_DECL:
  case KST_ASSIGN:
  case KST_RETURN:
  case KST_EXPR:
    c->value = s->value ? flat(t, s->value) : NULL;
    break;
  default: t->why = "has a statement after its tile loop kfuse does not read back"; return NULL;
  }
  return t->why ? NULL : c;
}

/* The tile loop's body: locals, the staging stores, a barrier, the inner loop, a barrier.
 * Returns the inner loop's update, or NULL (t->why). */
static const kstmt *tile_body(tiles *t, const kstmt *L, const kstmt **inner) {
  const kstmt *b[MAX_TOP];
  int n = 0, i = 0;
  kst_flatten(L->then, b, &n, MAX_TOP);
  if (n > MAX_TOP) {
    t->why = "has too many statements in its tile loop";
    return NULL;
  }
  for (; i < n && b[i]->kind != KST_SYNC; i++) {
    const kstmt *s = b[i];
    if (s->kind == KST_DECL && t->k->vars[s->var].kind == KV_LOCAL && s->value && !t->k->vars[s->var].nassign &&
        !expr_shares(t, s->value))
      continue;
    if (s->kind != KST_STORE || !is_shared(t, s->array_var) || s->op != -1 || t->nstage == MAX_STAGES) {
      t->why = "has a statement before its barrier other than locals and one staging store per tile";
      return NULL;
    }
    for (int j = 0; j < t->nstage; j++)
      if (t->stage[j]->array_var == s->array_var) {
        t->why = "stages one tile twice";
        return NULL;
      }
    t->stage[t->nstage++] = s;
  }
  if (n - i != 3 || !t->nstage || b[i + 1]->kind != KST_FOR || b[i + 2]->kind != KST_SYNC) {
    t->why = "has a tile loop other than its stores, a barrier, the inner loop and a barrier";
    return NULL;
  }
  *inner = b[i + 1];
  const kstmt *u[2];
  int nu = 0;
  kst_flatten((*inner)->then, u, &nu, 2);
  if (nu != 1 || u[0]->kind != KST_ASSIGN || u[0]->member || shares(t, u[0]) == 0) {
    t->why = "has an inner loop other than one update that reads its tiles";
    return NULL;
  }
  return u[0];
}

/* Whether p is a constant >= 0. */
static int nonneg_const(const poly *p) {
  return !p->bad && (p->n == 0 || (p->n == 1 && p->t[0].n == 0 && p->t[0].coef >= 0));
}

/* The block's extent along x, y and z: T, T and 1. */
static const char *block_is_tile(tiles *t, const kstep *st) {
  for (int d = 0; d < 3; d++) {
    poly p;
    if (!st->block_dim[d]) {
      if (d == 2)
        continue;
      return "has a block kfuse does not read";
    }
    xpoly(&t->pc, st->block_dim[d], &p);
    if (d == 2) {
      poly one;
      p_const(&one, 1);
      if (!p_equal(&p, &one))
        return "has a block of more than one layer";
    } else if (!p_equal(&p, &t->T)) {
      return "has a block other than its tile";
    }
  }
  return NULL;
}

static const char *read_back_kernel(tiles *t, const kstep *st, kkernel *view) {
  const kkernel *k = t->k;
  if (!k->body || !k->uses_shared || !k->uses_sync || k->uses_atomics || k->uses_warp)
    return "stages no tiles";
  const kstmt *top[MAX_TOP], *L = NULL;
  int n = 0, at = -1;
  kst_flatten(k->body, top, &n, MAX_TOP);
  if (n > MAX_TOP)
    return "has too many statements";
  for (int i = 0; i < n; i++)
    if (shares(t, top[i])) {
      if (top[i]->kind == KST_DECL && is_shared(t, top[i]->var))
        continue;
      if (L || top[i]->kind != KST_FOR)
        return "uses shared memory outside one loop at its top level";
      L = top[i];
      at = i;
    }
  if (!L || L->loop_var < 0 || L->hi_inclusive || !kx_is_zero(L->lo))
    return "has no tile loop from 0";
  t->k0 = L->loop_var;
  t->a_k0 = atom_id(&t->A, "l:k0");
  t->a_kk = atom_id(&t->A, "l:kk");
  poly pk0, pkk;
  p_atom(&pk0, t->a_k0);
  p_atom(&pkk, t->a_kk);
  t->pc.var_atom[0] = t->k0;
  t->pc.var_poly[0] = &pk0;
  t->pc.nvar = 1;
  kpoly(&t->pc, L->stride, &t->T);
  kpoly(&t->pc, L->hi, &t->K);
  if (t->T.bad || t->K.bad || p_has(&t->K, t->a_k0))
    return "has a tile loop whose step or bound kfuse does not read";
  const kstmt *inner = NULL, *upd = tile_body(t, L, &inner);
  if (!upd)
    return t->why;
  t->tiled = 1;
  for (int i = 0; i < at; i++)
    if (top[i]->kind != KST_DECL)
      return "has a statement before its tile loop other than declarations";
  t->kk = inner->loop_var;
  t->pc.var_atom[1] = t->kk;
  t->pc.var_poly[1] = &pkk;
  t->pc.nvar = 2;
  poly ihi, ist, one;
  kpoly(&t->pc, inner->hi, &ihi);
  kpoly(&t->pc, inner->stride, &ist);
  p_const(&one, 1);
  if (t->kk < 0 || inner->hi_inclusive || !kx_is_zero(inner->lo) || !p_equal(&ihi, &t->T) || !p_equal(&ist, &one))
    return "has an inner loop other than over the tile from 0 by 1";
  if (upd->var < 0 || k->vars[upd->var].kind != KV_LOCAL)
    return "has an inner loop that updates no local";
  t->acc = upd->var;
  const char *why = block_is_tile(t, st);
  if (why)
    return why;
  for (int i = 0; i < t->nstage; i++) {
    const kvar *v = &k->vars[t->stage[i]->array_var];
    poly ix, want, tyx;
    if (v->ndims != 2 || (!v->dims && !v->dim_exprs))
      return "stages a tile that is no two-dimensional array";
    poly d0, d1;
    extent(t, v, 0, &d0);
    extent(t, v, 1, &d1);
    kpoly(&t->pc, t->stage[i]->index, &ix);
    p_atom(&tyx, atom_id(&t->A, kbuiltin_name(KB_TID_Y)));
    p_mul(&want, &d1, &tyx);
    p_atom(&tyx, atom_id(&t->A, kbuiltin_name(KB_TID_X)));
    p_add(&want, &want, &tyx, 1);
    /* the tile fits: extents at least T (constants) */
    p_add(&d0, &d0, &t->T, -1);
    p_add(&d1, &d1, &t->T, -1);
    if (!p_equal(&ix, &want) || !nonneg_const(&d0) || !nonneg_const(&d1))
      return "stages a tile other than at [threadIdx.y][threadIdx.x] of an array holding the tile";
  }
  /* the store's guard: after the tile loop */
  for (int i = at + 1; i < n; i++)
    if (top[i]->kind == KST_IF && !top[i]->orelse && (why = guards(t, top[i]->cond,
                                                                   top[i]->then && top[i]->then->kind == KST_RETURN)))
      return why;
  /* the view */
  kstmt *loop = arena_alloc(t->m->arena, sizeof *loop), *u = arena_alloc(t->m->arena, sizeof *u);
  *loop = *inner;
  *u = *upd;
  u->value = subst(t, upd->value, read_back, 0);
  if (!u->value)
    return t->why ? t->why : "has an update kfuse cannot read back";
  loop->hi = flat(t, L->hi);
  loop->then = u;
  if (!loop->hi)
    return t->why;
  loop->cond = NULL;
  loop->init = loop->step = NULL;
  kstmt *body = arena_alloc(t->m->arena, sizeof *body);
  memset(body, 0, sizeof *body);
  body->kind = KST_BLOCK;
  body->pos = k->body->pos;
  body->body = arena_alloc(t->m->arena, sizeof *body->body * (size_t)n);
  for (int i = 0; i < n; i++) {
    const kstmt *s = top[i];
    kstmt *c;
    if (i == at) {
      c = loop;
    } else if (s->kind == KST_DECL && s->var != t->acc) {
      continue; /* written out where used (shared arrays: read back) */
    } else if (!(c = flat_stmt(t, s))) {
      return t->why;
    }
    body->body[body->nbody++] = c;
  }
  body->cap_body = body->nbody;
  *view = *k;
  view->body = body;
  view->uses_shared = view->uses_sync = 0;
  view->nloops = 1;
  return NULL;
}

const char *tiles_read_back(const kmodel *m, const kentry *e, const kstep *st, const kkernel *k, kkernel *view,
                            int *tiled) {
  static tiles t;
  memset(&t, 0, sizeof t);
  t.m = m;
  t.k = k;
  t.k0 = t.kk = t.acc = -1;
  t.pc = (pctx){.A = &t.A, .m = m, .e = e, .k = k, .st = st, .builtins = 1, .own_params = 1};
  const char *why = read_back_kernel(&t, st, view);
  *tiled = t.tiled;
  return why;
}
