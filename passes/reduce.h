/*
 * reduce.h: reductions as the passes see them, over the lifted model.
 *
 * A *reduction loop* is a canonical loop whose body is declarations of locals followed by
 * one update of an accumulator (split-accumulators rewrites it; block reductions start
 * with one):
 *
 *   for (J j = lo; j < hi; j += s) { decls; acc += f; }     (acc = acc + f, fmaxf(acc, f)...)
 *
 * A *block row reduction* is a kernel that gives each block one value to compute from a
 * row, in the form the references write it:
 *
 *   __shared__ T smem[...];  decls;  T acc = init;
 *   for (int j = threadIdx.x; j < n; j += blockDim.x) acc = op(acc, f(j));
 *   smem[threadIdx.x] = acc;  __syncthreads();
 *   for (int s = blockDim.x / 2; s > 0; s >>= 1) {
 *     if (threadIdx.x < s) smem[threadIdx.x] = op(smem[threadIdx.x], smem[threadIdx.x + s]);
 *     __syncthreads();
 *   }
 *   if (threadIdx.x == 0) out[X] = g(smem[0]);
 *
 * launched with a power-of-two block. The block computes out[X] = g(init op f(0) op ...
 * op f(n - 1)) (for a sum, init must be 0: each thread starts from it), where the
 * declarations, n, f, X and g depend on the block (blockIdx, the parameters, loads at
 * indices of those) but on no thread index and not on the block's size: a pass may then
 * compute the same value with another block size and another order of the terms.
 */
#ifndef KFUSE_REDUCE_H
#define KFUSE_REDUCE_H

#include "../lib/model.h"

enum { RED_MAX_DECLS = 16, RED_MAX_PRE = 32, RED_MAX_TOP = 64 };

/* ---- expressions and statements of a kernel ---- */

/* e without the casts around it. */
const kexpr *kx_strip(const kexpr *e);
/* e without casts to float (a cast to an integer type changes the value: it stays). */
const kexpr *kx_float_strip(const kexpr *e);
/* Whether e is builtin b (threadIdx.x, blockDim.y...), casts aside. */
int kx_is_builtin(const kexpr *e, kbuiltin b);
/* Whether e, or an expression in it, satisfies pred(e, ctx). */
int kx_any(const kexpr *e, int (*pred)(const kexpr *, const void *), const void *ctx);
/* Whether statement s, or one nested in it, satisfies spred(s, ctx) (when given), or one of
 * their expressions (index, value, cond; a canonical loop's bounds are in its init, cond and
 * step) satisfies epred(e, ctx) (when given; it sees the whole expression, NULL too). spred
 * returns 1 for yes, 0 to look further, KST_SKIP to leave s and what is nested in it out. */
int kst_any(const kstmt *s, int (*spred)(const kstmt *, const void *), int (*epred)(const kexpr *, const void *),
            const void *ctx);
#define KST_SKIP (-1)
/* Whether e names variable var. */
int kx_names(const kexpr *e, int var);
/* Whether e is variable var (casts aside). */
int kx_is_var(const kexpr *e, int var);
/* Whether e is the literal 0, integer or floating (casts to float aside). */
int kx_is_zero(const kexpr *e);
/* Whether e holds a builtin index (threadIdx, blockIdx, blockDim...) of which `which` is a
 * bit mask (1 << kbuiltin). */
int kx_uses_builtins(const kexpr *e, unsigned which);
/* Whether statement s (nested ones included) assigns or declares var. */
int kst_assigns(const kstmt *s, int var);
/* The number of statements in s (s included) that assign or declare var. */
int kst_count_assigns(const kstmt *s, int var);
/* Whether statement s (nested ones included) names var anywhere: reads, assigns, declares
 * it, or loads through it. */
int kst_names(const kstmt *s, int var);
/* Whether e names variable var as a value: not only as the base of a load or store through
 * it (a pointer local passed to a function, a shared array's address taken). */
int kx_uses_value(const kexpr *e, int var);
/* The same over statement s (nested ones included), an assignment to var counted too. */
int kst_uses_value(const kstmt *s, int var);
/* kx_uses_builtins over every expression of statement s (nested ones included). */
int kst_uses_builtins(const kstmt *s, unsigned which);
/* Whether s (nested statements included) holds a statement of one of the kinds in the bit
 * mask `kinds` (1 << kstmt_kind); with `outside`, not counting those inside a loop of s (a
 * loop itself counts). */
int kst_holds(const kstmt *s, unsigned kinds, int outside);
/* The statements of s in order, plain blocks and multi-declarator groups flattened; *n may
 * end past max (then only the first max are stored). */
void kst_flatten(const kstmt *s, const kstmt **v, int *n, int max);
/* A type spelling without a leading const. */
const char *k_unconst(const char *t);

/* ---- comparing expressions of two kernels (or of one kernel at two loops) ---- */

/* Two launches and their kernels, and a loop variable of each that stands for the same
 * element (-1: none). */
typedef struct kx_cmp {
  const kkernel *k[2];
  const kstep *st[2];
  int j[2];
} kx_cmp;

/* Whether two launch arguments are the same buffer (or the same scalar text). */
int karg_same(const karg *a, const karg *b);
/* e, or the definition of the local it names, followed through single-definition locals
 * (the loop variable j aside). */
const kexpr *kx_resolve(const kkernel *k, const kexpr *e, int j);
/* Whether a (of c's first kernel) and b (of its second) compute the same value: the same
 * arithmetic on the same buffers at the same indices, the same scalars (compared through
 * the launches' arguments), the loop variables in place of each other, locals through
 * their definitions. */
int kx_same(const kx_cmp *c, const kexpr *a, const kexpr *b);

/* ---- reduction loops ---- */

typedef struct red_loop {
  const kstmt *loop;
  int acc;                      /* the accumulator */
  const char *fn;               /* fmaxf, fminf, max, min; NULL for a sum (or an arg form) */
  const kexpr *term;            /* f */
  const char *cmp;              /* an arg form: ">" or "<" (the update's strict comparison of
                                 * f with acc); NULL otherwise */
  int arg;                      /* an arg form: the index that goes with acc (set to j) */
  const kstmt *decls[RED_MAX_DECLS];
  int ndecls;
} red_loop;

/* Whether s is a reduction loop (above; f and the declarations do not name acc, nothing
 * in the body assigns j, hi and s name neither acc nor j); fills *L. */
int red_match_loop(const kkernel *k, const kstmt *s, red_loop *L);

/* Whether s is a reduction loop in an arg form: its body is declarations of locals followed
 * by an update of a value acc and its index arg together, under a strict comparison,
 *
 *   if (f > acc) { acc = f; arg = j; }                 (<; either side; either order)
 *   arg = f > acc ? j : arg;  acc = f > acc ? f : acc;  (the same comparison twice)
 *
 * so that acc ends as the first extreme of f over the loop's steps (or its initial value)
 * and arg as that step's j (or its initial value). Besides red_match_loop's conditions
 * (for acc and arg alike): the stride is a positive integer literal (j grows, so the first
 * step is the smallest j), and arg is an integer as wide as j (wider where j is unsigned
 * and arg is not), so that arg = j keeps j's order. Fills *L (fn NULL, cmp and arg set). */
int red_match_arg_loop(const kkernel *k, const kstmt *s, red_loop *L);

/* ---- thread-per-output kernels ---- */

/* A kernel whose threads each compute one output with a reduction loop, at its top level:
 * declarations (pre), optionally a guard `if (c) return;` followed by declarations (post)
 * or a guard `if (c) { post; loop; tail }` holding the rest, then the loop, then any
 * statements (tail); the accumulator declared, with a value, in pre or post. */
typedef struct red_column {
  const kstmt *pre[RED_MAX_TOP];
  int npre;
  const kstmt *guard;           /* NULL, `if (c) return;` or `if (c) { ... }` */
  int returns;                  /* the first form */
  const kstmt *post[RED_MAX_TOP];
  int npost;
  const kstmt *tail[RED_MAX_TOP];
  int ntail;
  const kstmt *acc_decl;        /* the accumulator's declaration, in pre or post */
  int acc_in_post;
} red_column;

/* Whether k has that form around `loop` (accumulator acc); fills *c. NULL, or why not. */
const char *red_column_match(const kkernel *k, const kstmt *loop, int acc, red_column *c);

/* ---- block row reductions ---- */

typedef struct block_red {
  const kstep *st;              /* the launch */
  const kkernel *k;
  red_loop loop;                /* j from threadIdx.x to n step blockDim.x */
  const kexpr *init;            /* the accumulator's initial value */
  int smem;                     /* the shared array of the tree */
  const kstmt *pre[RED_MAX_PRE]; /* the declarations before the loop (the accumulator's
                                 * and the shared array's aside), in order */
  int npre;
  const kstmt *store;           /* out[X] = g(smem[0]) */
  int out;                      /* out's parameter */
} block_red;

/* Whether t is a shared-memory halving tree over array smem with fn's operator (NULL for a
 * sum), for a block of bt threads (blockDim.x or bt spelled as a number):
 *   for (s = blockDim.x / 2; s > 0; s >>= 1) {
 *     if (threadIdx.x < s) smem[threadIdx.x] = fn(smem[threadIdx.x], smem[threadIdx.x + s]);
 *     __syncthreads();
 *   }                                              (a sum: smem[threadIdx.x] += ...)
 * With k, threadIdx.x may also be a local of k with that single definition. */
int red_match_tree(const kkernel *k, const kstmt *t, int smem, const char *fn, long long bt);

/* Whether launch st is a block row reduction; fills *r. Otherwise returns why not. */
const char *block_red_match(const kmodel *m, const kstep *st, block_red *r);

#endif
