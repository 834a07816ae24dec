/*
 * compare.h: the contract's tolerance rule (spec/input-format.md) as the verifier applies it:
 * an out or inout buffer matches when
 *     max|out - ref| <= atol + rtol * max|ref|   and   ||out - ref||2 <= rtol * ||ref||2
 * over the elements where the reference is finite, with NaN and Inf exactly where the
 * reference has them (Inf of the same sign). On stress inputs an element where the
 * reference is not finite is no evidence (the reference overflowed); a finite reference
 * still needs a finite output. Defaults: rtol 1e-4, atol 1e-5 for float and double;
 * rtol = atol = 1e-2 for half and bfloat16; exact for integer and bool buffers. An entry's
 * `tol` replaces the default for every one of its buffers, integer ones included.
 *
 * Where a stress makes the reference's own rounding grow (a large common offset in a long
 * sum: the partial sums are large, the result is not), a variant that is more accurate than
 * the reference would differ from it by the reference's error. So under a shift the
 * reference also runs on a twin of the inputs, shifted 1/81 further (which changes every
 * rounding but not, for the shift-invariant computations where cancellation lurks, the
 * result), and the difference of its two outputs is its noise.
 *
 * The statistics are elemcore.h's ec_cmp, gathered by the GPU (gpu_checks.h) or, in tests,
 * by cmp_stats on the host; cmp_judge turns them into the verdict.
 */
#ifndef KFUSE_RUNNER_COMPARE_H
#define KFUSE_RUNNER_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "elemcore.h"

typedef struct cmp_tol {
  double rtol, atol;
  int exact; /* 1: every element must equal the reference's (integers without `tol`) */
} cmp_tol;

/* The tolerance of a buffer of `type` when the entry's `tol` gave rtol and atol (either
 * negative: not given, the type's default applies). */
cmp_tol cmp_tolerance(int type, double rtol, double atol);

/* The statistics of out[0..n) against ref[0..n) on the host (as the GPU gathers them). */
ec_cmp cmp_stats(int type, const void *out, const void *ref, int64_t n, cmp_tol tol,
                 int finite_only);

/* 1 when statistics c pass under tol; otherwise 0, with the first broken criterion
 * described in msg (no buffer name, no newline). With noise (the statistics of the
 * reference against its own run on a twin of the stress inputs, below), both bounds also
 * admit 4 times the reference's own noise: max|out - ref| may exceed the rule by 4 max|noise|
 * and ||out - ref|| by 4 ||noise||. */
int cmp_judge(const ec_cmp *c, cmp_tol tol, const ec_cmp *noise, char *msg, size_t size);

/* cmp_stats and cmp_judge at once. */
int cmp_match(int type, const void *out, const void *ref, int64_t n, cmp_tol tol,
              int finite_only, char *msg, size_t size);

/* The first element of out whose every byte is `poison` while ref's element is not all
 * `poison` (an element the run did not write); -1 when there is none. */
int64_t cmp_unwritten(int type, const void *out, unsigned char poison, const void *ref,
                      int64_t n);

/* The first element that is all `pa` bytes in a and all `pb` bytes in b (two runs that
 * were poisoned differently both left it alone); -1 when there is none. */
int64_t cmp_unwritten_both(int type, const void *a, unsigned char pa, const void *b,
                           unsigned char pb, int64_t n);

/* How far two runs on the same inputs are apart (ec_spread), on the host. */
ec_spread cmp_spread(int type, const void *a, const void *b, int64_t n);

#endif
