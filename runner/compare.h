/*
 * compare.h: how the verifier compares a variant's buffers with the reference's, on the
 * host, by the contract's tolerance rule (spec/input-format.md): an out or inout buffer
 * matches when
 *     max|out - ref| <= atol + rtol * max|ref|   and   ||out - ref||2 <= rtol * ||ref||2
 * over the elements where the reference is finite, with NaN and Inf exactly where the
 * reference has them (Inf of the same sign). Defaults: rtol 1e-4, atol 1e-5 for float and
 * double; rtol = atol = 1e-2 for half and bfloat16; exact for integer and bool buffers. An
 * entry's `tol` replaces the default for every one of its buffers, integer ones included.
 */
#ifndef KFUSE_RUNNER_COMPARE_H
#define KFUSE_RUNNER_COMPARE_H

#include <stddef.h>
#include <stdint.h>

typedef struct cmp_tol {
  double rtol, atol;
  int exact; /* 1: every element must equal the reference's (integers without `tol`) */
} cmp_tol;

/* The tolerance of a buffer of `type` when the entry's `tol` gave rtol and atol (either
 * negative: not given, the type's default applies). */
cmp_tol cmp_tolerance(int type, double rtol, double atol);

/* 1 when out[0..n) matches ref[0..n) under tol; otherwise 0, with the first broken
 * criterion described in msg (no buffer name, no newline). */
int cmp_match(int type, const void *out, const void *ref, int64_t n, cmp_tol tol, char *msg,
              size_t size);

/* The first element of out whose every byte is `poison` while ref's element is not all
 * `poison` (an element the run did not write); -1 when there is none. */
int64_t cmp_unwritten(int type, const void *out, unsigned char poison, const void *ref,
                      int64_t n);

/* The first element that is all `pa` bytes in a and all `pb` bytes in b (two runs that
 * were poisoned differently both left it alone); -1 when there is none. */
int64_t cmp_unwritten_both(int type, const void *a, unsigned char pa, const void *b,
                           unsigned char pb, int64_t n);

/* How far two runs on the same inputs are apart. *equal is 1 when they are bit-for-bit
 * equal. Returns max|a - b| over the elements (INFINITY where NaN or Inf positions differ,
 * 0 when equal) and the first differing element in *where (-1 when equal). */
double cmp_spread(int type, const void *a, const void *b, int64_t n, int *equal,
                  int64_t *where);

#endif
