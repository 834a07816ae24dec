/* compare.c: the tolerance rule and the poison checks (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elem.h"
#include "kfuse_bundle.h"

cmp_tol cmp_tolerance(int type, double rtol, double atol) {
  cmp_tol t = {0, 0, 0};
  if (rtol >= 0 || atol >= 0) {
    t.rtol = rtol >= 0 ? rtol : 0;
    t.atol = atol >= 0 ? atol : 0;
  } else if (type == KB_F32 || type == KB_F64) {
    t.rtol = 1e-4;
    t.atol = 1e-5;
  } else if (type == KB_F16 || type == KB_BF16) {
    t.rtol = t.atol = 1e-2;
  } else {
    t.exact = 1;
  }
  return t;
}

static int match_exact(int type, const void *out, const void *ref, int64_t n, char *msg,
                       size_t size) {
  for (int64_t i = 0; i < n; i++) {
    int64_t o = elem_get_int(type, out, i), r = elem_get_int(type, ref, i);
    if (o != r) {
      snprintf(msg, size, "element %lld is %lld, reference %lld (exact)", (long long)i,
               (long long)o, (long long)r);
      return 0;
    }
  }
  return 1;
}

int cmp_match(int type, const void *out, const void *ref, int64_t n, cmp_tol tol, char *msg,
              size_t size) {
  if (tol.exact)
    return match_exact(type, out, ref, n, msg, size);

  double maxd = 0, maxref = 0, at_o = 0, at_r = 0;
  long double sumd2 = 0, sumr2 = 0;
  int64_t at = -1;
  for (int64_t i = 0; i < n; i++) {
    double o = elem_get(type, out, i), r = elem_get(type, ref, i);
    int bad = 0;
    if (isnan(r))
      bad = !isnan(o);
    else if (isinf(r))
      bad = o != r;
    else
      bad = !isfinite(o);
    if (bad) {
      snprintf(msg, size, "element %lld is %g, reference %g", (long long)i, o, r);
      return 0;
    }
    if (!isfinite(r))
      continue;
    double d = fabs(o - r);
    if (d > maxd) {
      maxd = d;
      at = i;
      at_o = o;
      at_r = r;
    }
    if (fabs(r) > maxref)
      maxref = fabs(r);
    sumd2 += (long double)d * d;
    sumr2 += (long double)r * r;
  }
  double bound = tol.atol + tol.rtol * maxref;
  if (maxd > bound) {
    snprintf(msg, size,
             "max|out-ref| %.3g at element %lld (out %.7g, reference %.7g) > atol %g + "
             "rtol %g * max|ref| %.4g",
             maxd, (long long)at, at_o, at_r, tol.atol, tol.rtol, maxref);
    return 0;
  }
  double l2d = sqrtl(sumd2), l2r = sqrtl(sumr2);
  if (l2d > tol.rtol * l2r) {
    snprintf(msg, size, "||out-ref|| %.3g > rtol %g * ||ref|| %.4g", l2d, tol.rtol, l2r);
    return 0;
  }
  return 1;
}

static int all_bytes(const unsigned char *p, size_t k, unsigned char b) {
  for (size_t j = 0; j < k; j++)
    if (p[j] != b)
      return 0;
  return 1;
}

int64_t cmp_unwritten(int type, const void *out, unsigned char poison, const void *ref,
                      int64_t n) {
  size_t k = elem_size(type);
  const unsigned char *o = out, *r = ref;
  for (int64_t i = 0; i < n; i++)
    if (all_bytes(o + (size_t)i * k, k, poison) && !all_bytes(r + (size_t)i * k, k, poison))
      return i;
  return -1;
}

int64_t cmp_unwritten_both(int type, const void *a, unsigned char pa, const void *b,
                           unsigned char pb, int64_t n) {
  size_t k = elem_size(type);
  const unsigned char *x = a, *y = b;
  for (int64_t i = 0; i < n; i++)
    if (all_bytes(x + (size_t)i * k, k, pa) && all_bytes(y + (size_t)i * k, k, pb))
      return i;
  return -1;
}

double cmp_spread(int type, const void *a, const void *b, int64_t n, int *equal,
                  int64_t *where) {
  size_t k = elem_size(type);
  const unsigned char *x = a, *y = b;
  double maxd = 0;
  *equal = 1;
  *where = -1;
  for (int64_t i = 0; i < n; i++) {
    if (memcmp(x + (size_t)i * k, y + (size_t)i * k, k) == 0)
      continue;
    if (*equal) {
      *equal = 0;
      *where = i;
    }
    double u = elem_get(type, a, i), v = elem_get(type, b, i);
    double d = (isfinite(u) && isfinite(v)) ? fabs(u - v) : (u == v ? 0 : INFINITY);
    if (isnan(u) && isnan(v))
      d = 0; /* two NaNs with other payloads */
    if (d > maxd)
      maxd = d;
  }
  return maxd;
}
