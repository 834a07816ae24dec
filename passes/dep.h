/*
 * dep.h: loop-carried dependences through memory, decided by isl (the integer set library
 * PPCG is built on).
 *
 * A loop L of a lifted kernel carries a dependence when two accesses to one buffer inside
 * it, one of them a store, may touch the same element in two different iterations of L
 * within one iteration of every loop around L. The question is put to isl as a set of
 * pairs of iteration vectors, and L carries none when that set is empty for every value of
 * the sizes: a proof for all sizes, not a test at the example's.
 *
 * How an access is modelled. The canonical loops from L inward are the set's dimensions,
 * bounded by their bounds (conditions are left out: the set only grows, so a dependence is
 * never missed). Everything else an index names (the kernel's scalars, the loops around L,
 * locals L never assigns) is a parameter, the same for both accesses: it has one value
 * while L runs. Row-major indices over symbolic sizes (A[i * n + j]) are not affine; they
 * are taken apart into their strides (1, n, n * m...) when every lower component provably
 * stays in [0, the next stride), and compared component by component (delinearization).
 * An index kfuse cannot model (through a load, a division) counts as a dependence.
 */
#ifndef KFUSE_DEP_H
#define KFUSE_DEP_H

#include "../lib/model.h"

typedef struct dep_query {
  const kmodel *m;
  const kkernel *k;
  const kstmt *loop;            /* L: a canonical KST_FOR of k's body */
  unsigned long long skip;      /* bit i: kernel parameter i left out (stores the caller
                                 * makes atomic, with every access to that buffer) */
  const kstmt *around;          /* or NULL: the loop around L, L the one statement of its
                                 * body, taken as inside L (the two interchanged): its
                                 * iterations are dimensions too, not one fixed value */
  const kstmt *at;              /* or NULL: the loop of k's body that `around` (else L) is a
                                 * copy of, where a pass made it (a part of a distributed
                                 * loop): the loops around that one are around it */
} dep_query;

/* NULL when L carries no dependence through memory; else why, naming the statement pair
 * and the distance: "y[i] (line 5) and y[i - 1] (line 5) touch one element 1 iteration of
 * 'i' apart". */
const char *dep_carried(const dep_query *q);

/* Whether running every iteration of L's statements x before any of its statements y (L
 * distributed into two loops) would reverse an access pair's order: NULL when no access of
 * x may touch an element that an access of y touches in an earlier iteration of L (or in
 * the same one, with same_too: where x's and y's statements interleave in L's body), one of
 * the two a store; else why. q's `around` and `skip` are not used. */
const char *dep_reversed(const dep_query *q, const kstmt *const *x, int nx, const kstmt *const *y, int ny,
                         int same_too);

/* Whether L's iterations and those of J, the loop L's body ends with (after declarations
 * only), can run in fronts: every pair (l, j) with s * l + j = f at once, the fronts f in
 * increasing order. NULL when no two accesses touch one element in two iterations whose
 * order that reverses or makes simultaneous (the iteration first in the loops' order must
 * be in an earlier front), one of the two a store; else why. Every access must be inside J.
 * q's `around` and `skip` are not used. */
const char *dep_fronts(const dep_query *q, const kstmt *J, int s);

#endif
