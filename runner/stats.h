/*
 * stats.h: the statistics of timing: order statistics, median absolute deviation, and a
 * bootstrap confidence interval for the speedup (ratio of medians) of interleaved pairs.
 * Plain C; the bootstrap uses rng.h with a caller-given seed, so results are reproducible.
 */
#ifndef KFUSE_RUNNER_STATS_H
#define KFUSE_RUNNER_STATS_H

#include <stdint.h>

typedef struct stats_summary {
  int n;            /* samples */
  double median;
  double p10, p90;  /* 10th and 90th percentiles */
  double mad;       /* median absolute deviation from the median (unscaled) */
  double min, max;
} stats_summary;

/* Sort x[0..n) ascending in place. */
void stats_sort(double *x, int n);
/* The q-quantile (0 <= q <= 1) of sorted[0..n), interpolating linearly between order
 * statistics (Hyndman and Fan's type 7, as R and NumPy do). NAN when n is 0. */
double stats_quantile_sorted(const double *sorted, int n, double q);
/* Median of x[0..n) (x is not changed). */
double stats_median(const double *x, int n);
/* Median absolute deviation of x[0..n) from its median (x is not changed). */
double stats_mad(const double *x, int n);
/* All of the above at once; every field is NAN (n 0) when n is 0. Returns 0, or -1 when
 * out of memory. */
int stats_summarize(const double *x, int n, stats_summary *out);

/*
 * The speedup of b over a from n interleaved pairs (a[i], b[i]) of times: *ratio =
 * median(a) / median(b), and its bootstrap percentile interval at `level` (0.95) from
 * nboot resamples of whole pairs (pairs stay together: a slow phase of the machine slows
 * both). Returns 0, or -1 when n < 2 or out of memory.
 */
int stats_speedup_ci(const double *a, const double *b, int n, int nboot, double level,
                     uint64_t seed, double *ratio, double *lo, double *hi);

#endif
