/*
 * pointwise.h: the pointwise view of a kernel launch, what fusion reasons about.
 *
 * A launch is *pointwise* when its kernel is lifted and, for every element index i of a
 * one-dimensional domain [0, n), one thread runs a straight-line body (declarations,
 * assignments, conditions; no loop, shared memory, barrier, atomic or warp operation) that
 * reads buffers and scalars and writes buffers at i itself. Reads at another index (a
 * broadcast such as bias[i % N]) are allowed; fusion then requires that no kernel of the
 * chain writes that buffer. The kernel reaches its elements in one of three ways:
 *
 *   int i = blockIdx.x * blockDim.x + threadIdx.x;  if (i >= n) return;  body
 *   int i = ...;  if (i < n && c) { body }            (c: a condition of the body)
 *   for (int i = ...; i < n; i += blockDim.x * gridDim.x) { body }
 *
 * (in the loop's header, the start and the stride may be locals declared just before it,
 * `const size_t stride = (size_t)gridDim.x * blockDim.x;`, that the body does not use)
 *
 * or, over a two-dimensional grid whose y extent the launch gives (kstep.grid_y), a row
 * per blockIdx.y and the guard on the column only:
 *
 *   int r = blockIdx.y;  int c = blockIdx.x * blockDim.x + threadIdx.x;  if (c >= n) return;
 *
 * whose element is r * n + c of the domain [0, rows * n): an access is at the element when
 * its index is r * n + c (`y[(size_t)r * n + c]`); reads at r are broadcasts.
 *
 * n is an expression of the kernel's parameters; through the launch's arguments it becomes
 * an expression of the entry's scalars and host variables, the *domain*, which fusion
 * compares across launches (pw_same_size). Nothing here proves that the launch's grid
 * covers the domain: the reference's own verification shows whether it writes its outputs.
 */
#ifndef KFUSE_POINTWISE_H
#define KFUSE_POINTWISE_H

#include "model.h"

typedef struct pw_launch {
  const kstep *step;        /* the launch (a top-level step of its entry) */
  const kkernel *k;
  int elem;                 /* the element index: a variable of k (a two-dimensional
                             * launch: the column) */
  int row;                  /* a two-dimensional launch's row variable (blockIdx.y), or -1 */
  ktype index_type;         /* its type (KT_I32, KT_I64, ...) */
  const char *index_spelling;
  kexpr *bound;             /* n, over k's parameters (a two-dimensional launch: the row
                             * length) */
  kexpr *cond;              /* a further condition of the guard (`i < n && c`), or NULL */
  kstmt **pre;              /* declarations before the guard (index arithmetic), in order */
  int npre;
  kstmt **body;             /* the element's statements */
  int nbody;
  xexpr *domain;            /* n over the entry's scalars and host variables, as the launch
                             * passes it (host variables not substituted); rows * n for a
                             * two-dimensional launch */
} pw_launch;

/* Whether step st of entry e is a pointwise launch; fills *out. Otherwise returns 0 with a
 * reason (static or in m's arena) in *why. */
int pw_analyze(const kmodel *m, const kentry *e, const kstep *st, pw_launch *out,
               const char **why);

/* Whether e is blockIdx.x * blockDim.x + threadIdx.x, in any order, with any casts
 * (blockDim.x may be spelled as `threads`, the launch's constant block size, when > 0). */
int pw_is_linear(const kexpr *e, long long threads);

/* Whether the load or store with access index `access` of L's kernel is at the element
 * index itself. */
int pw_at_element(const pw_launch *L, int access);

/* Whether two integer expressions of entry e (over its scalars and host variables) are
 * equal for every value of the scalars: host variables that are never reassigned are
 * replaced by their initializers, sums and products put in a canonical order, constants
 * folded, and the results compared. 0 means "not shown equal". */
int pw_same_size(const kentry *e, const xexpr *a, const xexpr *b, arena *ar);

/* e * k (an element count times an element size), for comparing byte counts. */
xexpr *pw_times(arena *a, const xexpr *e, int64_t k);

#endif
