/* stats.c: timing statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

void stats_sort(double *x, int n) {
  if (n > 1)
    qsort(x, (size_t)n, sizeof *x, cmp_double);
}

double stats_quantile_sorted(const double *sorted, int n, double q) {
  if (n <= 0)
    return NAN;
  q = q < 0 ? 0 : q > 1 ? 1 : q;
  double h = q * (n - 1);
  int i = (int)floor(h);
  if (i >= n - 1)
    return sorted[n - 1];
  return sorted[i] + (h - i) * (sorted[i + 1] - sorted[i]);
}

static double *sorted_copy(const double *x, int n) {
  double *c = malloc(sizeof *c * (size_t)(n > 0 ? n : 1));
  if (!c)
    return NULL;
  if (n > 0)
    memcpy(c, x, sizeof *c * (size_t)n);
  stats_sort(c, n);
  return c;
}

double stats_median(const double *x, int n) {
  double *c = sorted_copy(x, n);
  double m = c ? stats_quantile_sorted(c, n, 0.5) : NAN;
  free(c);
  return m;
}

/* MAD of sorted[0..n) around its median m, using dev[0..n) as scratch. */
static double mad_sorted(const double *sorted, int n, double m, double *dev) {
  for (int i = 0; i < n; i++)
    dev[i] = fabs(sorted[i] - m);
  stats_sort(dev, n);
  return stats_quantile_sorted(dev, n, 0.5);
}

double stats_mad(const double *x, int n) {
  stats_summary s;
  if (stats_summarize(x, n, &s) != 0)
    return NAN;
  return s.mad;
}

int stats_summarize(const double *x, int n, stats_summary *out) {
  out->n = n > 0 ? n : 0;
  out->median = out->p10 = out->p90 = out->mad = out->min = out->max = NAN;
  if (n <= 0)
    return 0;
  double *c = sorted_copy(x, n);
  double *dev = malloc(sizeof *dev * (size_t)n);
  if (!c || !dev) {
    free(c);
    free(dev);
    return -1;
  }
  out->median = stats_quantile_sorted(c, n, 0.5);
  out->p10 = stats_quantile_sorted(c, n, 0.1);
  out->p90 = stats_quantile_sorted(c, n, 0.9);
  out->min = c[0];
  out->max = c[n - 1];
  out->mad = mad_sorted(c, n, out->median, dev);
  free(c);
  free(dev);
  return 0;
}

int stats_speedup_ci(const double *a, const double *b, int n, int nboot, double level,
                     uint64_t seed, double *ratio, double *lo, double *hi) {
  if (n < 2 || nboot < 1)
    return -1;
  double *ra = malloc(sizeof *ra * (size_t)n), *rb = malloc(sizeof *rb * (size_t)n);
  double *boot = malloc(sizeof *boot * (size_t)nboot);
  if (!ra || !rb || !boot) {
    free(ra);
    free(rb);
    free(boot);
    return -1;
  }
  *ratio = stats_median(a, n) / stats_median(b, n);

  rng r;
  rng_seed(&r, seed);
  for (int k = 0; k < nboot; k++) {
    for (int i = 0; i < n; i++) {
      int j = (int)rng_below(&r, (uint64_t)n);
      ra[i] = a[j];
      rb[i] = b[j];
    }
    stats_sort(ra, n);
    stats_sort(rb, n);
    boot[k] = stats_quantile_sorted(ra, n, 0.5) / stats_quantile_sorted(rb, n, 0.5);
  }
  stats_sort(boot, nboot);
  *lo = stats_quantile_sorted(boot, nboot, (1 - level) / 2);
  *hi = stats_quantile_sorted(boot, nboot, 1 - (1 - level) / 2);
  free(ra);
  free(rb);
  free(boot);
  return 0;
}
