/*
 * poly.h: index algebra. Integer expressions of a kernel and of its entry as polynomials:
 * sums of integer multiples of products of *atoms* (a thread's coordinates, loop
 * variables, the entry's scalars: kernel parameters through their launch arguments, host
 * variables through their initializers when never reassigned; with `builtins`, threadIdx,
 * blockIdx, blockDim and named compile-time constants too). Two index expressions are the
 * same function when their polynomials are equal. Division and remainder by a monomial are
 * taken only where the remainder is provably in range (an atom whose upper bound is the
 * divisor). Integer casts are taken as value-preserving: the reference's indices do not
 * overflow.
 */
#ifndef KFUSE_POLY_H
#define KFUSE_POLY_H

#include <stdint.h>

#include "../lib/model.h"

enum { MAX_ATOMS = 64, MAX_TERMS = 128, MAX_FACTORS = 6 };

typedef struct mono {
  int64_t coef;
  int n;
  int atom[MAX_FACTORS];        /* sorted */
} mono;

typedef struct poly {
  int n;
  mono t[MAX_TERMS];
  int bad;                      /* could not be represented */
} poly;

typedef struct atoms {
  const char *key[MAX_ATOMS];
  poly *ub[MAX_ATOMS];          /* the atom is in [0, ub); NULL: unknown */
  int n;
} atoms;

/* The atom named key (made when new), or -1 when there are too many. */
int atom_id(atoms *A, const char *key);
void p_const(poly *p, int64_t v);
/* The polynomial of atom a (bad when a < 0). */
void p_atom(poly *p, int a);
/* *r = a + sign * b. */
void p_add(poly *r, const poly *a, const poly *b, int64_t sign);
void p_mul(poly *r, const poly *a, const poly *b);
int p_equal(const poly *a, const poly *b);
/* p / d and p % d for d a single monomial with a positive coefficient: the terms d
 * divides go to the quotient, the rest is the remainder, which must be 0 or one atom whose
 * range is [0, d). Returns 0 when that does not hold. */
int p_divmod(const atoms *A, const poly *p, const poly *d, poly *q, poly *r);

/* p with atom a replaced by q everywhere (p's terms may hold a at most once). */
void p_subst(poly *p, int a, const poly *q);
/* A monomial m with p == m * s (m's coefficient positive or negative), found by dividing a
 * term of p by s's first term. Returns 0 when there is none. */
int p_ratio(const poly *p, const poly *s, poly *m);
/* q with a == q * b, by long division (graded order of the terms); 0 when b does not
 * divide a exactly. */
int p_div_exact(const poly *a, const poly *b, poly *q);
/* p printed with its terms in a fixed order: equal polynomials print the same (a key). */
void p_print_key(const atoms *A, const poly *p, strbuf *b);
/* num / den as integer division: the exact quotient when den is a constant that divides
 * every coefficient, else an atom "q:(num) / (den)" that stands for the quotient (two
 * quotients of equal polynomials are the same atom). */
void p_quot(atoms *A, arena *a, const poly *num, const poly *den, poly *out);

/* Splits p into a * q + r, q and r free of atom a. Returns 0 when a term holds a more than
 * once. */
int p_coef(const poly *p, int a, poly *q, poly *r);
/* Whether p holds atom a. */
int p_has(const poly *p, int a);
/* p as a C expression over the atoms' names (their keys without the "x:" prefix), with
 * each product computed in 64 bits when `wide` (`(long long)M * K`). */
void p_print(const atoms *A, const poly *p, int wide, strbuf *b);

/* How a kernel's expressions become polynomials. */
typedef struct pctx {
  atoms *A;
  const kmodel *m;
  const kentry *e;
  const kkernel *k;
  const kstep *st;
  /* substitutions for this kernel: */
  int var_atom[4];              /* vars mapped to polys */
  const poly *var_poly[4];
  int nvar;
  const poly *bid_y;            /* blockIdx.y, or NULL: an atom "blockIdx.y" */
  const poly *linear;           /* blockIdx.x * blockDim.x + threadIdx.x, or NULL */
  int builtins;                 /* other builtins and named constants as atoms (else bad) */
  int own_params;               /* the kernel's scalar parameters as atoms "p:name", not
                                 * through the launch's arguments */
  int any_block;                /* `linear` also stands for blockIdx.x * X + threadIdx.x with
                                 * X other than the block's size (a template parameter): a
                                 * pass whose proof does not depend on the threads' mapping */
  int depth;
} pctx;

/* Whether e is blockIdx.x * X + threadIdx.x for some X (in either order). */
int poly_is_linear_any(const kexpr *e);

/* An integer expression of the entry (a launch's argument, a grid extent). */
void xpoly(pctx *c, const xexpr *x, poly *out);
/* An integer expression of c's kernel, locals followed through their single definitions
 * (or replaced by var_poly). */
void kpoly(pctx *c, const kexpr *e, poly *out);

#endif
