/* poly.c: index algebra (poly.h). */
#include "poly.h"

#include <string.h>

#include "../lib/pointwise.h"
#include "reduce.h"

int atom_id(atoms *A, const char *key) {
  for (int i = 0; i < A->n; i++)
    if (!strcmp(A->key[i], key))
      return i;
  if (A->n == MAX_ATOMS)
    return -1;
  A->key[A->n] = key;
  A->ub[A->n] = NULL;
  return A->n++;
}

void p_const(poly *p, int64_t v) {
  memset(p, 0, sizeof *p);
  if (v) {
    p->n = 1;
    p->t[0].coef = v;
  }
}

void p_atom(poly *p, int a) {
  memset(p, 0, sizeof *p);
  if (a < 0) {
    p->bad = 1;
    return;
  }
  p->n = 1;
  p->t[0].coef = 1;
  p->t[0].n = 1;
  p->t[0].atom[0] = a;
}

static int mono_same(const mono *a, const mono *b) {
  if (a->n != b->n)
    return 0;
  for (int i = 0; i < a->n; i++)
    if (a->atom[i] != b->atom[i])
      return 0;
  return 1;
}

static void p_add_mono(poly *p, const mono *m) {
  if (!m->coef)
    return;
  for (int i = 0; i < p->n; i++)
    if (mono_same(&p->t[i], m)) {
      p->t[i].coef += m->coef;
      if (!p->t[i].coef)
        p->t[i] = p->t[--p->n];
      return;
    }
  if (p->n == MAX_TERMS) {
    p->bad = 1;
    return;
  }
  p->t[p->n++] = *m;
}

void p_add(poly *r, const poly *a, const poly *b, int64_t sign) {
  poly x = *a;
  for (int i = 0; i < b->n; i++) {
    mono m = b->t[i];
    m.coef *= sign;
    p_add_mono(&x, &m);
  }
  x.bad |= b->bad;
  *r = x;
}

void p_mul(poly *r, const poly *a, const poly *b) {
  poly x;
  p_const(&x, 0);
  x.bad = a->bad || b->bad;
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++) {
      mono m = {a->t[i].coef * b->t[j].coef, 0, {0}};
      if (a->t[i].n + b->t[j].n > MAX_FACTORS) {
        x.bad = 1;
        continue;
      }
      int ia = 0, ib = 0;
      while (ia < a->t[i].n || ib < b->t[j].n) /* merge the sorted factors */
        m.atom[m.n++] = ib >= b->t[j].n || (ia < a->t[i].n && a->t[i].atom[ia] <= b->t[j].atom[ib])
                            ? a->t[i].atom[ia++]
                            : b->t[j].atom[ib++];
      p_add_mono(&x, &m);
    }
  *r = x;
}

int p_equal(const poly *a, const poly *b) {
  if (a->bad || b->bad)
    return 0;
  poly d;
  p_add(&d, a, b, -1);
  return !d.bad && d.n == 0;
}

/* The monomial d divides m: *q = m / d. */
static int mono_div(const mono *m, const mono *d, mono *q) {
  if (d->coef == 0 || m->coef % d->coef)
    return 0;
  int used[MAX_FACTORS] = {0};
  q->coef = m->coef / d->coef;
  q->n = 0;
  for (int i = 0; i < d->n; i++) {
    int found = 0;
    for (int j = 0; j < m->n && !found; j++)
      if (!used[j] && m->atom[j] == d->atom[i])
        used[j] = found = 1;
    if (!found)
      return 0;
  }
  for (int j = 0; j < m->n; j++)
    if (!used[j])
      q->atom[q->n++] = m->atom[j];
  return 1;
}

/* p / d and p % d for d a single monomial with a positive coefficient: the terms d
 * divides go to the quotient, the rest is the remainder, which must be 0 or one atom whose
 * range is [0, d). */
int p_divmod(const atoms *A, const poly *p, const poly *d, poly *q, poly *r) {
  if (p->bad || d->bad || d->n != 1 || d->t[0].coef <= 0)
    return 0;
  p_const(q, 0);
  p_const(r, 0);
  for (int i = 0; i < p->n; i++) {
    mono m;
    if (mono_div(&p->t[i], &d->t[0], &m))
      p_add_mono(q, &m);
    else
      p_add_mono(r, &p->t[i]);
  }
  if (r->n == 0)
    return 1;
  if (r->n != 1 || r->t[0].coef != 1 || r->t[0].n != 1)
    return 0;
  const poly *ub = A->ub[r->t[0].atom[0]];
  return ub && p_equal(ub, d);
}

int p_has(const poly *p, int a) {
  for (int i = 0; i < p->n; i++)
    for (int f = 0; f < p->t[i].n; f++)
      if (p->t[i].atom[f] == a)
        return 1;
  return 0;
}

int p_coef(const poly *p, int a, poly *q, poly *r) {
  p_const(q, 0);
  p_const(r, 0);
  if (p->bad)
    return 0;
  for (int i = 0; i < p->n; i++) {
    mono m = p->t[i];
    int at = -1, count = 0;
    for (int f = 0; f < m.n; f++)
      if (m.atom[f] == a) {
        at = f;
        count++;
      }
    if (count > 1)
      return 0;
    if (count == 0) {
      p_add_mono(r, &m);
      continue;
    }
    memmove(&m.atom[at], &m.atom[at + 1], (size_t)(m.n - at - 1) * sizeof m.atom[0]);
    m.n--;
    p_add_mono(q, &m);
  }
  return !q->bad && !r->bad;
}

void p_print(const atoms *A, const poly *p, int wide, strbuf *b) {
  if (p->n == 0) {
    sb_puts(b, "0");
    return;
  }
  for (int i = 0; i < p->n; i++) {
    const mono *m = &p->t[i];
    int64_t c = m->coef;
    if (i)
      sb_puts(b, c < 0 ? " - " : " + ");
    else if (c < 0)
      sb_puts(b, "-");
    if (c < 0)
      c = -c;
    int first = 1;
    if (c != 1 || m->n == 0) {
      sb_printf(b, wide ? "%lldLL" : "%lld", (long long)c);
      first = 0;
    }
    for (int f = 0; f < m->n; f++) {
      const char *key = A->key[m->atom[f]];
      const char *name = strchr(key, ':') ? strchr(key, ':') + 1 : key;
      sb_printf(b, "%s%s%s", first ? "" : " * ", first && wide ? "(long long)" : "", name);
      first = 0;
    }
  }
}

void p_subst(poly *p, int a, const poly *q) {
  poly with, rest, t;
  if (!p_has(p, a))
    return;
  if (!p_coef(p, a, &with, &rest)) {
    p->bad = 1;
    return;
  }
  p_mul(&t, &with, q);
  p_add(p, &rest, &t, 1);
}

int p_ratio(const poly *p, const poly *s, poly *m) {
  if (p->bad || s->bad || s->n == 0 || p->n == 0)
    return 0;
  for (int i = 0; i < p->n; i++) {
    mono q;
    if (!mono_div(&p->t[i], &s->t[0], &q))
      continue;
    poly qp, t;
    p_const(&qp, 0);
    p_add_mono(&qp, &q);
    p_mul(&t, &qp, s);
    if (p_equal(&t, p)) {
      *m = qp;
      return 1;
    }
  }
  return 0;
}

/* The greater of two terms in graded lexicographic order of their atoms (ids). */
static int mono_greater(const mono *a, const mono *b) {
  if (a->n != b->n)
    return a->n > b->n;
  for (int i = 0; i < a->n; i++)
    if (a->atom[i] != b->atom[i])
      return a->atom[i] > b->atom[i];
  return 0;
}

static int lead(const poly *p) {
  int l = 0;
  for (int i = 1; i < p->n; i++)
    if (mono_greater(&p->t[i], &p->t[l]))
      l = i;
  return l;
}

int p_div_exact(const poly *a, const poly *b, poly *q) {
  poly r = *a;
  p_const(q, 0);
  if (a->bad || b->bad || b->n == 0)
    return 0;
  const mono *lb = &b->t[lead(b)];
  for (int it = 0; r.n && it < 4 * MAX_TERMS; it++) {
    mono m;
    if (!mono_div(&r.t[lead(&r)], lb, &m))
      return 0;
    poly mp, t;
    p_const(&mp, 0);
    p_add_mono(&mp, &m);
    p_add_mono(q, &m);
    p_mul(&t, &mp, b);
    p_add(&r, &r, &t, -1);
    if (r.bad || q->bad)
      return 0;
  }
  return r.n == 0;
}

static int mono_cmp(const atoms *A, const mono *a, const mono *b) {
  if (a->n != b->n)
    return a->n - b->n;
  for (int i = 0; i < a->n; i++) {
    int c = strcmp(A->key[a->atom[i]], A->key[b->atom[i]]);
    if (c)
      return c;
  }
  return a->coef < b->coef ? -1 : a->coef > b->coef;
}

/* p printed with its terms in a fixed order (by their atoms' keys), for keys. */
void p_print_key(const atoms *A, const poly *p, strbuf *b) {
  poly s = *p;
  for (int i = 1; i < s.n; i++)
    for (int j = i; j > 0 && mono_cmp(A, &s.t[j - 1], &s.t[j]) > 0; j--) {
      mono t = s.t[j];
      s.t[j] = s.t[j - 1];
      s.t[j - 1] = t;
    }
  p_print(A, &s, 0, b);
}

void p_quot(atoms *A, arena *a, const poly *num, const poly *den, poly *out) {
  memset(out, 0, sizeof *out);
  if (num->bad || den->bad || den->n == 0) {
    out->bad = 1;
    return;
  }
  if (den->n == 1 && den->t[0].n == 0 && den->t[0].coef > 0) {
    int64_t d = den->t[0].coef;
    if (num->n == 0 || (num->n == 1 && num->t[0].n == 0)) { /* two constants: C's quotient */
      p_const(out, num->n ? num->t[0].coef / d : 0);
      return;
    }
    int exact = 1;
    for (int i = 0; i < num->n; i++)
      exact &= num->t[i].coef % d == 0;
    if (exact) {
      *out = *num;
      for (int i = 0; i < out->n; i++)
        out->t[i].coef /= d;
      return;
    }
  }
  strbuf k = {0};
  sb_puts(&k, "q:((");
  p_print_key(A, num, &k);
  sb_puts(&k, ") / (");
  p_print_key(A, den, &k);
  sb_puts(&k, "))");
  p_atom(out, atom_id(A, arena_strdup(a, k.s)));
  sb_free(&k);
}

/* ---- expressions to polynomials ---- */


/* A scalar of the entry: a host variable's initializer when it is never reassigned,
 * else an atom. */
static void name_poly(pctx *c, const char *name, poly *out) {
  for (int i = c->e->nhostvars - 1; i >= 0; i--) {
    const khostvar *v = &c->e->hostvars[i];
    if (!strcmp(v->name, name)) {
      if (v->init && !v->assigned && c->depth < 32) {
        c->depth++;
        xpoly(c, v->init, out);
        c->depth--;
        return;
      }
      break;
    }
  }
  p_atom(out, atom_id(c->A, arena_printf(c->m->arena, "s:%s", name)));
}

void xpoly(pctx *c, const xexpr *x, poly *out) {
  poly a, b;
  switch (x->kind) {
  case XE_INT: p_const(out, x->ival); return;
  case XE_NAME: name_poly(c, x->name, out); return;
  case XE_UNARY:
    if (x->op == XO_PLUS || x->op == XO_NEG) {
      xpoly(c, x->a, &a);
      p_const(&b, 0);
      p_add(out, &b, &a, x->op == XO_NEG ? -1 : 1);
      return;
    }
    break;
  case XE_BINARY:
    if (x->op == XO_ADD || x->op == XO_SUB || x->op == XO_MUL || x->op == XO_DIV) {
      xpoly(c, x->a, &a);
      xpoly(c, x->b, &b);
      if (x->op == XO_DIV)
        p_quot(c->A, c->m->arena, &a, &b, out);
      else if (x->op == XO_MUL)
        p_mul(out, &a, &b);
      else
        p_add(out, &a, &b, x->op == XO_SUB ? -1 : 1);
      return;
    }
    break;
  default: break;
  }
  memset(out, 0, sizeof *out);
  out->bad = 1;
}

int poly_is_linear_any(const kexpr *e) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY || e->op != KO_ADD)
    return 0;
  const kexpr *m = kx_is_builtin(e->b, KB_TID_X) ? kx_strip(e->a) : kx_is_builtin(e->a, KB_TID_X) ? kx_strip(e->b) : NULL;
  return m && m->kind == KE_BINARY && m->op == KO_MUL && (kx_is_builtin(m->a, KB_BID_X) || kx_is_builtin(m->b, KB_BID_X));
}

void kpoly(pctx *c, const kexpr *e, poly *out) {
  memset(out, 0, sizeof *out);
  if (!e || ++c->depth > 64) {
    out->bad = 1;
    c->depth--;
    return;
  }
  poly a, b;
  e = kx_strip(e); /* integer casts keep the value: the reference's indices do not overflow */
  if (c->linear && (pw_is_linear(e, c->st->block_threads) || (c->any_block && poly_is_linear_any(e)))) {
    *out = *c->linear;
    c->depth--;
    return;
  }
  switch (e->kind) {
  case KE_INT: p_const(out, e->ival); break;
  case KE_PARAM: {
    const karg *g = &c->st->args[e->param];
    if (c->own_params)
      p_atom(out, atom_id(c->A, arena_printf(c->m->arena, "p:%s", c->k->params[e->param].name)));
    else if (g->value)
      xpoly(c, g->value, out);
    else
      p_atom(out, atom_id(c->A, arena_printf(c->m->arena, "a:%s", g->text)));
    break;
  }
  case KE_VAR: {
    int done = 0;
    for (int i = 0; i < c->nvar && !done; i++)
      if (c->var_atom[i] == e->var) {
        *out = *c->var_poly[i];
        done = 1;
      }
    if (!done) {
      const kexpr *d = kx_resolve(c->k, e, -1);
      if (d != e)
        kpoly(c, d, out);
      else
        out->bad = 1;
    }
    break;
  }
  case KE_BUILTIN:
    if (e->builtin == KB_BID_Y && c->bid_y)
      *out = *c->bid_y;
    else if (c->builtins)
      p_atom(out, atom_id(c->A, kbuiltin_name(e->builtin)));
    else
      out->bad = 1;
    break;
  case KE_CONST: {
    long long v;
    if (e->text && c->st && c->k->is_template && model_template_value(c->k, c->st, e->text, &v)) {
      p_const(out, v); /* a template parameter: its value at the launch */
      break;
    }
    if (c->builtins && e->text)
      p_atom(out, atom_id(c->A, arena_printf(c->m->arena, "k:%s", e->text)));
    else
      out->bad = 1;
    break;
  }
  case KE_BINARY:
    kpoly(c, e->a, &a);
    kpoly(c, e->b, &b);
    if (e->op == KO_ADD || e->op == KO_SUB)
      p_add(out, &a, &b, e->op == KO_SUB ? -1 : 1);
    else if (e->op == KO_MUL)
      p_mul(out, &a, &b);
    else if (e->op == KO_DIV || e->op == KO_MOD) {
      poly q, r;
      if (p_divmod(c->A, &a, &b, &q, &r))
        *out = e->op == KO_DIV ? q : r;
      else
        out->bad = 1;
    } else
      out->bad = 1;
    break;
  default: out->bad = 1; break;
  }
  c->depth--;
}

