/*
 * poly-test.c: the index algebra's operations (passes/poly.h) on small cases, printed one
 * per line for poly.test: exact division, quotients of sizes as atoms, substitution,
 * monomial ratios, division and remainder by a range.
 */
#include <stdio.h>

#include "../../passes/poly.h"

static atoms A;
static arena *ar;

static void show(const char *what, const poly *p, int ok) {
  strbuf b = {0};
  if (ok && !p->bad)
    p_print_key(&A, p, &b);
  printf("%s: %s\n", what, ok && !p->bad ? b.s : "none");
  sb_free(&b);
}

static poly atom(const char *key) {
  poly p;
  p_atom(&p, atom_id(&A, key));
  return p;
}

static poly cnst(int64_t v) {
  poly p;
  p_const(&p, v);
  return p;
}

static poly add(poly a, poly b, int64_t sign) {
  poly r;
  p_add(&r, &a, &b, sign);
  return r;
}

static poly mul(poly a, poly b) {
  poly r;
  p_mul(&r, &a, &b);
  return r;
}

int main(void) {
  ar = arena_new();
  poly H = atom("s:H"), W = atom("s:W"), C = atom("s:C"), x = atom("x"), y = atom("y"), q;
  poly h2 = add(H, cnst(2), -1), w2 = add(W, cnst(2), -1);

  /* (H - 2)(W - 2) C / (W - 2) = (H - 2) C; H W + 1 is no multiple of W */
  int ok = p_div_exact(&(poly){0}, &w2, &q); /* 0 / (W - 2) = 0 */
  show("div_exact zero", &q, ok);
  ok = p_div_exact((poly[]){mul(mul(h2, w2), C)}, &w2, &q);
  show("div_exact", &q, ok);
  ok = p_div_exact((poly[]){add(mul(H, W), cnst(1), 1)}, &W, &q);
  show("div_exact inexact", &q, ok);

  /* (H - 7) / 4 twice, its terms built in either order: one atom; (4H + 8) / 4 = H + 2 */
  poly a, b;
  p_quot(&A, ar, (poly[]){add(H, cnst(7), -1)}, (poly[]){cnst(4)}, &a);
  p_quot(&A, ar, (poly[]){add(cnst(-7), H, 1)}, (poly[]){cnst(4)}, &b);
  show("quot", &a, 1);
  printf("quot same atom: %d\n", p_equal(&a, &b));
  p_quot(&A, ar, (poly[]){add(mul(cnst(4), H), cnst(8), 1)}, (poly[]){cnst(4)}, &a);
  show("quot exact", &a, 1);

  /* x C + W with x := y + 1 */
  poly s = add(mul(x, C), W, 1);
  int xa = atom_id(&A, "x");
  p_subst(&s, xa, (poly[]){add(y, cnst(1), 1)});
  show("subst", &s, 1);

  /* 6W = 2 (3W); W H = H (W); W + 1 is no monomial times W */
  ok = p_ratio((poly[]){mul(cnst(6), W)}, (poly[]){mul(cnst(3), W)}, &q);
  show("ratio const", &q, ok);
  ok = p_ratio((poly[]){mul(W, H)}, &W, &q);
  show("ratio atom", &q, ok);
  ok = p_ratio((poly[]){add(W, cnst(1), 1)}, &W, &q);
  show("ratio none", &q, ok);

  /* (x W + y) / W and % W with y in [0, W): x and y; without the range: none */
  poly r;
  ok = p_divmod(&A, (poly[]){add(mul(x, W), y, 1)}, &W, &q, &r);
  show("divmod no range", &q, ok);
  A.ub[atom_id(&A, "y")] = &W;
  ok = p_divmod(&A, (poly[]){add(mul(x, W), y, 1)}, &W, &q, &r);
  show("divmod quotient", &q, ok);
  show("divmod remainder", &r, ok);
  arena_free(ar);
  return 0;
}
