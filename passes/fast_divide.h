/*
 * fast_divide.h: 32-bit integer divisions by a launch's invariant, as a multiply-high, an
 * add and a shift (passes/cuda/kf_fast_divide.cuh; docs/passes/fast-divide.md).
 *
 * A division `n / d` or `n % d` of a kernel qualifies when its type is int or unsigned int
 * and d is an expression of the kernel's integer parameters, literals and constants (at
 * least one parameter: a literal divisor nvcc strength-reduces itself) whose arguments at
 * the launch are expressions kfuse reads (no calls, no side effects). The host computes the
 * divisor's multiplier once per launch, kf_divmagic_of(d), and passes it as an added
 * parameter of the kernel, one per distinct divisor; the kernel calls kf_div_i32(n, d, g)
 * (kf_mod_i32, the _u32 forms) in its place, which is C's result for every n and d.
 * Used by the pass fast-divide and by the passes that print a kernel of their own from the
 * model (coarsen's `divide`).
 */
#ifndef KFUSE_FAST_DIVIDE_H
#define KFUSE_FAST_DIVIDE_H

#include "../lib/model.h"
#include "../lib/print.h"
#include "../lib/variant.h"

enum { FDIV_MAX = 32, FDIV_MAX_DIVISORS = 8 };

typedef struct fdiv_set {
  const kexpr *div[FDIV_MAX];       /* the qualifying divisions, in the body's order */
  int slot[FDIV_MAX];               /* each one's divisor, an index into divisor[] */
  int n;
  const char *divisor[FDIV_MAX_DIVISORS]; /* the distinct divisors, as the kernel prints them */
  const kexpr *divisor_expr[FDIV_MAX_DIVISORS];
  int ndivisors;
} fdiv_set;

/* The divisions of kernel k, launched by st, that qualify, into *s (in a); returns how many
 * (0: none, or the kernel is not one the printer writes: a template, an instance). */
int fdiv_find(arena *a, const kkernel *k, const kstep *st, fdiv_set *s);
/* An expression hook's part: when e is one of s's divisions, prints its call, the operands
 * through h, and returns 1; else 0. */
int fdiv_print(const fdiv_set *s, const kkernel *k, const print_hooks *h, const kexpr *e, strbuf *b);
/* The added parameters (", kf_divmagic kf_dm0, ..."), for after the kernel's own. */
void fdiv_print_params(const fdiv_set *s, strbuf *b);
/* The added arguments (", kf_divmagic_of(...), ..."), for after launch st's own: each
 * divisor over the launch's arguments. */
void fdiv_print_args(const fdiv_set *s, const kkernel *k, const kstep *st, strbuf *b);
/* Adds the helper (the struct, the host's multiplier, the device functions) to v once. */
void fdiv_add_helper(variant *v);

#endif
