/* compare.c: the tolerance rule and the poison checks (compare.h). */
#include "compare.h"

#include <stdio.h>

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

ec_cmp cmp_stats(int type, const void *out, const void *ref, int64_t n, cmp_tol tol,
                 int finite_only) {
  ec_cmp c;
  ec_cmp_init(&c);
  for (int64_t i = 0; i < n; i++)
    ec_cmp_add(&c, type, out, ref, i, tol.exact, finite_only);
  return c;
}

int cmp_judge(const ec_cmp *c, cmp_tol tol, const ec_cmp *noise, char *msg, size_t size) {
  if (c->bad >= 0) {
    if (tol.exact)
      snprintf(msg, size, "element %lld is %lld, reference %lld (exact)", (long long)c->bad,
               (long long)c->bad_out, (long long)c->bad_ref);
    else
      snprintf(msg, size, "element %lld is %g, reference %g", (long long)c->bad, c->bad_out,
               c->bad_ref);
    return 0;
  }
  if (tol.exact)
    return 1;
  double nmax = noise ? noise->maxd : 0, nl2 = noise ? sqrt(noise->sumd2) : 0;
  char extra[128] = "";
  double bound = tol.atol + tol.rtol * c->maxref + 4 * nmax;
  if (noise)
    snprintf(extra, sizeof extra, " + 4 * the reference's own noise %.3g", nmax);
  if (c->maxd > bound) {
    snprintf(msg, size,
             "max|out-ref| %.3g at element %lld (out %.7g, reference %.7g) > atol %g + "
             "rtol %g * max|ref| %.4g%s",
             c->maxd, (long long)c->at, c->at_out, c->at_ref, tol.atol, tol.rtol, c->maxref,
             extra);
    return 0;
  }
  double l2d = sqrt(c->sumd2), l2r = sqrt(c->sumr2);
  if (noise)
    snprintf(extra, sizeof extra, " + 4 * the reference's own noise %.3g", nl2);
  if (l2d > tol.rtol * l2r + 4 * nl2) {
    snprintf(msg, size, "||out-ref|| %.3g > rtol %g * ||ref|| %.4g%s", l2d, tol.rtol, l2r, extra);
    return 0;
  }
  return 1;
}

int cmp_match(int type, const void *out, const void *ref, int64_t n, cmp_tol tol,
              int finite_only, char *msg, size_t size) {
  ec_cmp c = cmp_stats(type, out, ref, n, tol, finite_only);
  return cmp_judge(&c, tol, NULL, msg, size);
}

int64_t cmp_unwritten(int type, const void *out, unsigned char poison, const void *ref,
                      int64_t n) {
  size_t k = ec_size(type);
  const unsigned char *o = out, *r = ref;
  for (int64_t i = 0; i < n; i++)
    if (ec_all_bytes(o + (size_t)i * k, k, poison) && !ec_all_bytes(r + (size_t)i * k, k, poison))
      return i;
  return -1;
}

int64_t cmp_unwritten_both(int type, const void *a, unsigned char pa, const void *b,
                           unsigned char pb, int64_t n) {
  size_t k = ec_size(type);
  const unsigned char *x = a, *y = b;
  for (int64_t i = 0; i < n; i++)
    if (ec_all_bytes(x + (size_t)i * k, k, pa) && ec_all_bytes(y + (size_t)i * k, k, pb))
      return i;
  return -1;
}

ec_spread cmp_spread(int type, const void *a, const void *b, int64_t n) {
  ec_spread s;
  ec_spread_init(&s);
  for (int64_t i = 0; i < n; i++)
    ec_spread_add(&s, type, a, b, i);
  return s;
}
