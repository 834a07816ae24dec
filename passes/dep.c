/*
 * dep.c: loop-carried dependences through memory, decided by isl (dep.h says what is
 * modelled and how).
 */
#include "dep.h"

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "poly.h"
#include "reduce.h"

enum { DEP_MAX_ACCESSES = 256, DEP_MAX_LOOPS = 8, DEP_MAX_GROUPS = 6 };

/* One global access inside L. */
typedef struct access {
  int param;
  int is_store;
  const kexpr *index;
  unsigned pos;
  const kstmt *loops[DEP_MAX_LOOPS]; /* the canonical loops around it, L first */
  int nloops;
} access;

typedef struct walk {
  const dep_query *q;
  const kstmt *stack[DEP_MAX_LOOPS];
  int depth;
  access acc[DEP_MAX_ACCESSES];
  int n;
  const char *why;              /* something that cannot be modelled */
  unsigned why_pos;
} walk;

static void add_access(walk *w, int param, int is_store, const kexpr *index, unsigned pos) {
  if (w->q->skip >> param & 1)
    return;
  if (w->n == DEP_MAX_ACCESSES || w->depth > DEP_MAX_LOOPS) {
    w->why = "too many accesses to analyse";
    return;
  }
  access *a = &w->acc[w->n++];
  a->param = param;
  a->is_store = is_store;
  a->index = index;
  a->pos = pos;
  a->nloops = w->depth;
  memcpy(a->loops, w->stack, sizeof(a->loops[0]) * (size_t)w->depth);
}

/* The index of an access into its parameter's buffer: as written, or, through a pointer
 * local (`const float *row = x + i * n; row[j]`), the model's flattened index, the
 * pointer's offset included (NULL when there is none: not modelled). */
static const kexpr *buffer_index(const kkernel *k, int var, const kexpr *index, int at) {
  if (var < 0)
    return index;
  return at >= 0 && at < k->naccesses ? k->accesses[at].flat_index : NULL;
}

static void walk_expr(walk *w, const kexpr *e) {
  if (!e)
    return;
  if (e->kind == KE_CALL)
    for (int i = 0; i < e->nargs; i++) {
      const kexpr *x = e->args[i];
      if (x && (x->kind == KE_ADDR || (x->kind == KE_PARAM && w->q->k->params[x->param].is_pointer))) {
        w->why = arena_printf(w->q->m->arena, "a call of '%s' with a pointer, which may write through it", e->text);
        w->why_pos = e->pos;
      }
    }
  if (e->kind == KE_LOAD || e->kind == KE_ADDR) {
    if (e->param >= 0) /* an address may be written through: it counts as a store */
      add_access(w, e->param, e->kind == KE_ADDR, buffer_index(w->q->k, e->var, e->a, e->access), e->pos);
    else if (e->var < 0 || (w->q->k->vars[e->var].kind != KV_LOCAL_ARRAY && w->q->k->vars[e->var].kind != KV_SHARED)) {
      w->why = "a load through a pointer kfuse cannot follow";
      w->why_pos = e->pos;
    }
  }
  walk_expr(w, e->a);
  walk_expr(w, e->b);
  walk_expr(w, e->c);
  for (int i = 0; i < e->nargs; i++)
    walk_expr(w, e->args[i]);
}

static void walk_stmt(walk *w, const kstmt *s) {
  if (!s)
    return;
  switch (s->kind) {
  case KST_STORE:
  case KST_ATOMIC:
    if (s->param >= 0) {
      /* a compound store reads the element too: the store stands for both */
      add_access(w, s->param, 1, buffer_index(w->q->k, s->array_var, s->index, s->access), s->pos);
    } else if (s->array_var < 0) {
      w->why = "a store through a pointer kfuse cannot follow";
      w->why_pos = s->pos;
    }
    walk_expr(w, s->index);
    walk_expr(w, s->value);
    return;
  case KST_FOR: {
    int canonical = s->loop_var >= 0 && w->depth < DEP_MAX_LOOPS;
    walk_stmt(w, s->init);
    walk_expr(w, s->cond);
    if (canonical)
      w->stack[w->depth++] = s;
    walk_stmt(w, s->then);
    walk_stmt(w, s->step);
    if (canonical)
      w->depth--;
    return;
  }
  default: break;
  }
  walk_expr(w, s->value);
  walk_expr(w, s->index);
  walk_expr(w, s->cond);
  walk_stmt(w, s->init);
  walk_stmt(w, s->step);
  walk_stmt(w, s->then);
  walk_stmt(w, s->orelse);
  for (int i = 0; i < s->nbody; i++)
    walk_stmt(w, s->body[i]);
}

/* The canonical loops around L, outermost first: their variables are parameters. */
static int outer_loops(const kstmt *s, const kstmt *L, const kstmt **out, int *n) {
  if (!s)
    return 0;
  if (s == L)
    return 1;
  int pushed = 0;
  if (s->kind == KST_FOR && s->loop_var >= 0 && *n < DEP_MAX_LOOPS) {
    out[(*n)++] = s;
    pushed = 1;
  }
  if (outer_loops(s->init, L, out, n) || outer_loops(s->then, L, out, n) || outer_loops(s->orelse, L, out, n))
    return 1;
  for (int i = 0; i < s->nbody; i++)
    if (outer_loops(s->body[i], L, out, n))
      return 1;
  if (pushed)
    (*n)--;
  return 0;
}

/* ---- indices as polynomials ---- */

typedef struct ctx {
  const dep_query *q;
  atoms A;
  const kstmt *outer[DEP_MAX_LOOPS];
  int nouter;
  int depth;
  char print_as;                /* print either side's dims as this side's ('a'), or 0 */
  const char *order;            /* pair(): the iterations of L compared, "<" for a later
                                 * than b, "<=" for a no earlier; NULL for any two */
  const kstmt *front;           /* pair(): or the loop J in L whose iterations run in fronts
                                 * of front_s * L's variable + J's (dep_fronts()) */
  int front_s;
} ctx;

static int is_loop_of(const kstmt *const *loops, int n, int var) {
  for (int i = 0; i < n; i++)
    if (loops[i]->loop_var == var)
      return 1;
  return 0;
}

/* e as a polynomial: loop variables of `loops` (side 'a' or 'b') are "d<side>:<var>",
 * everything L does not change is a parameter. */
static void lin(ctx *c, const access *x, char side, const kexpr *e, poly *out) {
  memset(out, 0, sizeof *out);
  if (!e || ++c->depth > 64) {
    out->bad = 1;
    c->depth--;
    return;
  }
  const kkernel *k = c->q->k;
  arena *ar = c->q->m->arena;
  poly a, b;
  e = kx_strip(e);
  switch (e->kind) {
  case KE_INT: p_const(out, e->ival); break;
  case KE_PARAM: p_atom(out, atom_id(&c->A, arena_printf(ar, "p:%s", k->params[e->param].name))); break;
  case KE_CONST:
    if (e->text)
      p_atom(out, atom_id(&c->A, arena_printf(ar, "k:%s", e->text)));
    else
      out->bad = 1;
    break;
  case KE_VAR:
    if (is_loop_of(x->loops, x->nloops, e->var))
      p_atom(out, atom_id(&c->A, arena_printf(ar, "d%c:%d", side, e->var)));
    else if (is_loop_of(c->outer, c->nouter, e->var))
      p_atom(out, atom_id(&c->A, arena_printf(ar, "o:%d", e->var)));
    else if (!kst_assigns(c->q->loop, e->var) && k->vars[e->var].kind == KV_LOCAL) {
      /* one value while L runs: a parameter, as the loops' bounds name it too; but a
       * product of sizes (s = n * n) is kept as the product, a stride of the index */
      const kexpr *d = kx_resolve(k, e, -1);
      if (d != e)
        lin(c, x, side, d, out);
      if (d == e || out->bad || out->n != 1) {
        memset(out, 0, sizeof *out);
        p_atom(out, atom_id(&c->A, arena_printf(ar, "s:%d", e->var)));
      }
    } else {
      const kexpr *d = kx_resolve(k, e, -1);
      if (d != e)
        lin(c, x, side, d, out);
      else
        out->bad = 1;
    }
    break;
  case KE_UNARY:
    lin(c, x, side, e->a, &a);
    if (e->op == KO_NEG) {
      p_const(&b, 0);
      p_add(out, &b, &a, -1);
    } else if (e->op == KO_PLUS)
      *out = a;
    if (a.bad || (e->op != KO_NEG && e->op != KO_PLUS))
      out->bad = 1;
    break;
  case KE_BINARY:
    lin(c, x, side, e->a, &a);
    lin(c, x, side, e->b, &b);
    if (e->op == KO_ADD || e->op == KO_SUB)
      p_add(out, &a, &b, e->op == KO_SUB ? -1 : 1);
    else if (e->op == KO_MUL)
      p_mul(out, &a, &b);
    if (a.bad || b.bad || (e->op != KO_ADD && e->op != KO_SUB && e->op != KO_MUL))
      out->bad = 1;
    break;
  default: out->bad = 1; break;
  }
  c->depth--;
}

static int atom_is_dim(const ctx *c, int a) { return c->A.key[a][0] == 'd'; }

/* An affine polynomial in isl's syntax: dims are "a<var>" / "b<var>", parameters "P<atom>".
 * Returns 0 when p is not affine. */
static int isl_affine(const ctx *c, const poly *p, strbuf *b) {
  if (p->bad)
    return 0;
  sb_putc(b, '(');
  if (p->n == 0)
    sb_putc(b, '0');
  for (int i = 0; i < p->n; i++) {
    const mono *t = &p->t[i];
    if (t->n > 1)
      return 0;
    long long coef = (long long)t->coef;
    if (i)
      sb_puts(b, coef < 0 ? " - " : " + ");
    else if (coef < 0)
      sb_puts(b, "-");
    sb_printf(b, "%lld", coef < 0 ? -coef : coef);
    if (t->n == 1) {
      const char *key = c->A.key[t->atom[0]];
      if (key[0] == 'd')
        sb_printf(b, "*%c%s", c->print_as ? c->print_as : key[1], key + 3);
      else
        sb_printf(b, "*P%d", t->atom[0]);
    }
  }
  sb_putc(b, ')');
  return 1;
}

/* The constraints of a loop: lo <= v < hi (<= hi), and v - lo a multiple of a constant
 * stride. A bound that is not affine is left out. */
static void loop_constraints(ctx *c, const access *x, char side, const kstmt *L, int as_param, strbuf *b) {
  poly v, lo, hi, st;
  arena *ar = c->q->m->arena;
  p_atom(&v, atom_id(&c->A, as_param ? arena_printf(ar, "o:%d", L->loop_var)
                                     : arena_printf(ar, "d%c:%d", side, L->loop_var)));
  lin(c, x, side, L->lo, &lo);
  lin(c, x, side, L->hi, &hi);
  lin(c, x, side, L->stride, &st);
  strbuf sv = {0}, sl = {0}, sh = {0};
  isl_affine(c, &v, &sv);
  if (isl_affine(c, &lo, &sl)) {
    sb_printf(b, " and %s <= %s", sl.s, sv.s);
    if (!st.bad && st.n == 1 && st.t[0].n == 0 && st.t[0].coef > 1)
      sb_printf(b, " and (exists e%d : %s = %s + %lld*e%d)", L->loop_var, sv.s, sl.s, (long long)st.t[0].coef,
                L->loop_var);
  }
  if (isl_affine(c, &hi, &sh))
    sb_printf(b, " and %s %s %s", sv.s, L->hi_inclusive ? "<=" : "<", sh.s);
  sb_free(&sv);
  sb_free(&sl);
  sb_free(&sh);
}

/* ---- taking row-major indices apart ---- */

typedef struct groups {
  mono key[DEP_MAX_GROUPS];     /* products of parameters, coefficient 1 */
  poly e[2][DEP_MAX_GROUPS];    /* the component of each side */
  int n;
} groups;

static int mono_eq_atoms(const mono *a, const mono *b) {
  return a->n == b->n && !memcmp(a->atom, b->atom, sizeof(int) * (size_t)a->n);
}

/* Whether d's atoms are a sub-multiset of m's; q gets the rest. */
static int mono_divides(const mono *d, const mono *m, mono *q) {
  int i = 0, j = 0;
  memset(q, 0, sizeof *q);
  q->coef = 1;
  while (j < m->n) {
    if (i < d->n && d->atom[i] == m->atom[j]) {
      i++;
      j++;
    } else if (i < d->n && d->atom[i] < m->atom[j])
      return 0;
    else
      q->atom[q->n++] = m->atom[j++];
  }
  return i == d->n;
}

static int group_of(groups *g, const mono *key) {
  for (int i = 0; i < g->n; i++)
    if (mono_eq_atoms(&g->key[i], key))
      return i;
  if (g->n == DEP_MAX_GROUPS)
    return -1;
  g->key[g->n] = *key;
  g->key[g->n].coef = 1;
  memset(&g->e[0][g->n], 0, sizeof(poly));
  memset(&g->e[1][g->n], 0, sizeof(poly));
  return g->n++;
}

static void group_add(groups *g, int side, int gi, int64_t coef, const mono *rest) {
  poly t = {0}, r;
  t.n = 1;
  t.t[0] = *rest;
  t.t[0].coef = coef;
  p_add(&r, &g->e[side][gi], &t, 1);
  g->e[side][gi] = r;
}

/* Splits the two indices into components over a chain of strides 1 | s1 | s2 ... (each
 * the one before times a parameter). Returns 0 when they do not split so. A term of sizes
 * alone (the n in i * n + n - 1 - j) joins the largest stride it is a multiple of, or with
 * `small` the smallest (the components n - 1 - j and i + 1 are both ways of writing it; the
 * caller checks that each component stays within its stride, which makes the split the
 * only one). A product of sizes that no stride divides (the n * n of (n - 1) * n + i) makes
 * a stride of its own. */
static int split(const ctx *c, const poly *p0, const poly *p1, groups *g, int small) {
  memset(g, 0, sizeof *g);
  mono one = {0};
  group_of(g, &one);
  const poly *p[2] = {p0, p1};
  /* terms with a loop variable name their group: the rest of the product */
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < p[s]->n; i++) {
      const mono *t = &p[s]->t[i];
      int nd = 0, dim = -1;
      mono key = {0};
      for (int j = 0; j < t->n; j++) {
        if (atom_is_dim(c, t->atom[j])) {
          nd++;
          dim = t->atom[j];
        } else
          key.atom[key.n++] = t->atom[j];
      }
      if (nd > 1)
        return 0;
      if (nd == 1) {
        int gi = group_of(g, &key);
        if (gi < 0)
          return 0;
        mono d = {0};
        d.n = 1;
        d.atom[0] = dim;
        group_add(g, s, gi, t->coef, &d);
      }
    }
  /* terms of parameters alone join the largest group that leaves one factor (the smallest,
   * with `small`), the products of most factors first (they may make a group) */
  for (int deg = DEP_MAX_GROUPS; deg >= 0; deg--)
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < p[s]->n; i++) {
      const mono *t = &p[s]->t[i];
      int dims = 0;
      for (int j = 0; j < t->n; j++)
        dims += atom_is_dim(c, t->atom[j]);
      if (dims || t->n != deg)
        continue;
      int best = -1;
      mono rest = {0}, q;
      for (int gi = 0; gi < g->n; gi++)
        if (mono_divides(&g->key[gi], t, &q) && q.n <= 1 &&
            (best < 0 || (small ? g->key[gi].n < g->key[best].n : g->key[gi].n > g->key[best].n))) {
          best = gi;
          rest = q;
        }
      if (best < 0 && t->n >= 2) {
        /* sizes alone, a product no group divides: a group of all its factors but one */
        int sizes = 1;
        for (int j = 0; j < t->n; j++)
          sizes &= c->A.key[t->atom[j]][0] == 'p' || c->A.key[t->atom[j]][0] == 'k';
        if (sizes) {
          mono key = {0};
          for (int j = 0; j + 1 < t->n; j++)
            key.atom[key.n++] = t->atom[j];
          best = group_of(g, &key);
          if (best < 0)
            return 0;
          rest.n = 1;
          rest.atom[0] = t->atom[t->n - 1];
        }
      }
      if (best < 0) {
        /* k * n with k a loop around L or a local (a value, not a size): the component k
         * of stride n */
        int outer = -1;
        for (int j = 0; j < t->n; j++)
          if (c->A.key[t->atom[j]][0] == 'o' || c->A.key[t->atom[j]][0] == 's')
            outer = outer == -1 ? j : -2;
        if (outer < 0)
          return 0;
        mono key = {0};
        for (int j = 0; j < t->n; j++)
          if (j != outer)
            key.atom[key.n++] = t->atom[j];
        best = group_of(g, &key);
        if (best < 0)
          return 0;
        rest.n = 1;
        rest.atom[0] = t->atom[outer];
      }
      group_add(g, s, best, t->coef, &rest);
    }
  /* the strides in order, each the one before times one parameter */
  for (int i = 1; i < g->n; i++)
    for (int j = i; j > 0 && g->key[j].n < g->key[j - 1].n; j--) {
      mono tk = g->key[j];
      g->key[j] = g->key[j - 1];
      g->key[j - 1] = tk;
      for (int s = 0; s < 2; s++) {
        poly tp = g->e[s][j];
        g->e[s][j] = g->e[s][j - 1];
        g->e[s][j - 1] = tp;
      }
    }
  for (int i = 1; i < g->n; i++) {
    mono q;
    if (g->key[i].n != g->key[i - 1].n + 1 || !mono_divides(&g->key[i - 1], &g->key[i], &q))
      return 0;
  }
  return 1;
}

/* ---- the questions to isl ---- */

typedef struct asker {
  isl_ctx *isl;
  ctx *c;
} asker;

/* "[P0, P1] -> { [a1, a2, b1, b2] : ": the space of a pair (or of one access, b NULL). */
static void space(const ctx *c, const access *a, const access *b, strbuf *s) {
  sb_putc(s, '[');
  int first = 1;
  for (int i = 0; i < c->A.n; i++)
    if (!atom_is_dim(c, i)) {
      sb_printf(s, "%sP%d", first ? "" : ", ", i);
      first = 0;
    }
  sb_puts(s, "] -> { [");
  first = 1;
  for (int i = 0; i < a->nloops; i++, first = 0)
    sb_printf(s, "%sa%d", first ? "" : ", ", a->loops[i]->loop_var);
  for (int i = 0; b && i < b->nloops; i++, first = 0)
    sb_printf(s, "%sb%d", first ? "" : ", ", b->loops[i]->loop_var);
  sb_puts(s, "] : 0 = 0");
}

/* Whether the set written in s is empty; *sample gets a point of it when not (may be NULL). */
static int empty(asker *k, const char *s, isl_point **sample) {
  if (getenv("KFUSE_DEP_DEBUG"))
    fprintf(stderr, "dep: %s\n", s);
  isl_set *set = isl_set_read_from_str(k->isl, s);
  if (!set)
    return 0; /* isl could not read it: count it as not empty */
  int e = isl_set_is_empty(set);
  if (e == 0 && sample)
    *sample = isl_set_sample_point(isl_set_copy(set));
  isl_set_free(set);
  return e == 1;
}

static void domain(ctx *c, const access *x, char side, strbuf *s) {
  for (int i = 0; i < x->nloops; i++)
    loop_constraints(c, x, side, x->loops[i], 0, s);
}

/* The atoms of the loops and indices of both accesses are made before the space is
 * printed: isl needs every parameter declared. */
static void prime_atoms(ctx *c, const access *a, const access *b, poly *pa, poly *pb) {
  strbuf junk = {0};
  lin(c, a, 'a', a->index, pa);
  lin(c, b, 'b', b->index, pb);
  domain(c, a, 'a', &junk);
  domain(c, b, 'b', &junk);
  for (int i = 0; i < c->nouter; i++)
    loop_constraints(c, a, 'a', c->outer[i], 1, &junk);
  sb_free(&junk);
}

static void close_set(strbuf *s) { sb_puts(s, " }"); }

/* Whether every component below the top of side's index stays in [0, next stride). */
static int in_range(asker *k, const access *x, int side, const groups *g) {
  ctx *c = k->c;
  for (int i = 0; i + 1 < g->n; i++) {
    mono r;
    mono_divides(&g->key[i], &g->key[i + 1], &r);
    strbuf s = {0}, e = {0};
    c->print_as = 'a'; /* the space names either side's dims a<var> */
    space(c, x, NULL, &s);
    domain(c, x, side ? 'b' : 'a', &s);
    for (int o = 0; o < c->nouter; o++)
      loop_constraints(c, x, 'a', c->outer[o], 1, &s);
    int affine = isl_affine(c, &g->e[side][i], &e);
    c->print_as = 0;
    if (!affine) {
      sb_free(&s);
      sb_free(&e);
      return 0;
    }
    sb_printf(&s, " and (%s < 0 or %s >= P%d)", e.s, e.s, r.atom[0]);
    close_set(&s);
    int ok = empty(k, s.s, NULL);
    sb_free(&s);
    sb_free(&e);
    if (!ok)
      return 0;
  }
  return 1;
}

static const char *describe(ctx *c, const access *a, const access *b, const char *what) {
  const kmodel *m = c->q->m;
  const kkernel *k = c->q->k;
  strbuf ia = {0}, ib = {0};
  print_expr(k, a->index, &ia);
  print_expr(k, b->index, &ib);
  const char *name = k->params[a->param].name;
  const char *s = arena_printf(m->arena, "%s[%s] (line %u) and %s[%s] (line %u) %s", name, ia.s,
                               model_line(m, a->pos), name, ib.s, model_line(m, b->pos), what);
  sb_free(&ia);
  sb_free(&ib);
  return s;
}

/* Whether a and b may touch one element in two iterations of L: NULL when not. */
static const char *pair(asker *k, const access *a, const access *b) {
  ctx *c = k->c;
  const kstmt *L = c->q->loop;
  arena *ar = c->q->m->arena;
  poly pa, pb;
  prime_atoms(c, a, b, &pa, &pb);
  if (pa.bad || pb.bad)
    return describe(c, a, b, "may touch one element: an index kfuse cannot model");
  groups g;
  int within = 0, took = 0;
  for (int small = 0; small < 2 && !within; small++)
    if (split(c, &pa, &pb, &g, small)) {
      took = 1;
      within = in_range(k, a, 0, &g) && in_range(k, b, 1, &g);
    }
  if (!took)
    return describe(c, a, b, "may touch one element: an index kfuse cannot take apart");
  if (!within)
    return describe(c, a, b, "may touch one element: a component of the index may leave its row");
  strbuf s = {0};
  space(c, a, b, &s);
  domain(c, a, 'a', &s);
  domain(c, b, 'b', &s);
  for (int i = 0; i < c->nouter; i++)
    loop_constraints(c, a, 'a', c->outer[i], 1, &s);
  if (c->front) { /* one iteration before the other in the serial order, its front no earlier */
    int l = L->loop_var, j = c->front->loop_var, f = c->front_s;
    sb_printf(&s, " and ((a%d < b%d or (a%d = b%d and a%d < b%d)) and %d * a%d + a%d >= %d * b%d + b%d", l, l, l, l, j,
              j, f, l, j, f, l, j);
    sb_printf(&s, " or (b%d < a%d or (b%d = a%d and b%d < a%d)) and %d * b%d + b%d >= %d * a%d + a%d)", l, l, l, l, j,
              j, f, l, j, f, l, j);
  } else if (c->order)
    sb_printf(&s, " and b%d %s a%d", L->loop_var, c->order, L->loop_var);
  else
    sb_printf(&s, " and (a%d < b%d or a%d > b%d)", L->loop_var, L->loop_var, L->loop_var, L->loop_var);
  for (int i = 0; i < g.n; i++) {
    strbuf ea = {0}, eb = {0};
    int ok = isl_affine(c, &g.e[0][i], &ea) && isl_affine(c, &g.e[1][i], &eb);
    if (ok)
      sb_printf(&s, " and %s = %s", ea.s, eb.s);
    sb_free(&ea);
    sb_free(&eb);
    if (!ok) {
      sb_free(&s);
      return describe(c, a, b, "may touch one element: an index is not affine");
    }
  }
  close_set(&s);
  isl_point *pt = NULL;
  int none = empty(k, s.s, &pt);
  sb_free(&s);
  if (none)
    return NULL;
  const char *what = arena_printf(ar, "touch one element in two iterations of '%s'", c->q->k->vars[L->loop_var].name);
  if (c->front) {
    isl_point_free(pt);
    return describe(c, a, b, "touch one element in two fronts, the later one first in the loops' order");
  }
  if (pt) {
    isl_val *va = isl_point_get_coordinate_val(pt, isl_dim_set, 0);
    isl_val *vb = isl_point_get_coordinate_val(pt, isl_dim_set, a->nloops);
    if (va && vb && isl_val_is_int(va) && isl_val_is_int(vb)) {
      long d = isl_val_get_num_si(vb) - isl_val_get_num_si(va);
      what = arena_printf(ar, "touch one element %ld iteration%s of '%s' apart", d < 0 ? -d : d,
                          d == 1 || d == -1 ? "" : "s", c->q->k->vars[L->loop_var].name);
    }
    isl_val_free(va);
    isl_val_free(vb);
    isl_point_free(pt);
  }
  return describe(c, a, b, what);
}

/* The pairs of w's accesses from `from` on, or with the first `split` on the left and the
 * rest on the right (split > 0), that may touch one element, as ctx's order says: NULL
 * when none, else why. */
static const char *pairs(const dep_query *q, walk *w, int split, const char *order, const kstmt *front, int front_s) {
  if (w->why)
    return arena_printf(q->m->arena, "%s (line %u)", w->why, model_line(q->m, w->why_pos));
  int any_store = 0;
  for (int i = 0; i < w->n; i++)
    any_store |= w->acc[i].is_store;
  if (!any_store)
    return NULL;
  static ctx c;
  memset(&c, 0, sizeof c);
  c.q = q;
  c.order = order;
  c.front = front;
  c.front_s = front_s;
  outer_loops(q->k->body, q->at ? q->at : q->around ? q->around : q->loop, c.outer, &c.nouter);
  asker k = {isl_ctx_alloc(), &c};
  isl_options_set_on_error(k.isl, ISL_ON_ERROR_CONTINUE);
  const char *why = NULL;
  for (int i = 0; i < (split ? split : w->n) && !why; i++)
    for (int j = split ? split : i; j < w->n && !why; j++) {
      const access *a = &w->acc[i], *b = &w->acc[j];
      if (a->param != b->param || (!a->is_store && !b->is_store))
        continue;
      why = pair(&k, a, b);
    }
  isl_ctx_free(k.isl);
  return why;
}

static walk w_; /* large: kept off the stack */

const char *dep_carried(const dep_query *q) {
  memset(&w_, 0, sizeof w_);
  w_.q = q;
  w_.stack[w_.depth++] = q->loop;
  if (q->around)
    w_.stack[w_.depth++] = q->around;
  walk_stmt(&w_, q->loop->then);
  return pairs(q, &w_, 0, NULL, NULL, 0);
}

const char *dep_reversed(const dep_query *q, const kstmt *const *x, int nx, const kstmt *const *y, int ny,
                         int same_too) {
  memset(&w_, 0, sizeof w_);
  w_.q = q;
  w_.stack[w_.depth++] = q->loop;
  for (int i = 0; i < nx; i++)
    walk_stmt(&w_, x[i]);
  int split = w_.n;
  for (int i = 0; i < ny; i++)
    walk_stmt(&w_, y[i]);
  if (!split || split == w_.n)
    return w_.why ? pairs(q, &w_, 0, NULL, NULL, 0) : NULL;
  return pairs(q, &w_, split, same_too ? "<=" : "<", NULL, 0);
}

const char *dep_fronts(const dep_query *q, const kstmt *J, int s) {
  memset(&w_, 0, sizeof w_);
  w_.q = q;
  w_.stack[w_.depth++] = q->loop;
  walk_stmt(&w_, q->loop->then);
  for (int i = 0; i < w_.n; i++)
    if (w_.acc[i].nloops < 2 || w_.acc[i].loops[1] != J)
      return arena_printf(q->m->arena, "has an access outside the loop over '%s' (line %u)", q->k->vars[J->loop_var].name,
                          model_line(q->m, w_.acc[i].pos));
  return pairs(q, &w_, 0, NULL, J, s);
}
