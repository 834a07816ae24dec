/*
 * timing.c: the timing jobs. A measurement is the whole entry as a user pays for it: the
 * L2 cache is flushed (a write of twice its size) and the stream drained before each run,
 * then CUDA events on the entry's stream time it from the host call to the completion of
 * its stream work (harness_time). Each binding gets warm-up runs first, then `reps` timed
 * runs on one fixed set of inputs; `inout` buffers are restored before every run. A timing
 * stops early once it has WORKER_MIN_REPS runs (pairs) and its time budget is spent
 * (kfuse-runner --rep-budget, counted from its first timed run): where the reference is a
 * naive GEMM of half a second a call (level2/059, session 28), its runs and 3 re-timings of
 * 55 pairs come to about two of the problem's four minutes of tuning, for intervals far
 * tighter than the speedups' distance from 1.
 *
 *  - timing_own_job times one variant alone (in its verification job);
 *  - timing_compare_job times the reference and the final candidate interleaved, ABAB...,
 *    in one process, so that both see the same state of the machine; the runner turns the
 *    pairs into a speedup and its bootstrap interval (stats.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "harness.h"
#include "rng.h"
#include "worker.h"

enum { WARMUP = 5 };

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether a timing that began at start and has n runs (pairs) stops here. */
static int spent(const worker_job *j, double start, int n) {
  return n >= WORKER_MIN_REPS && j->rep_budget_s > 0 && seconds_now() - start >= j->rep_budget_s;
}

/* Buffers and inputs of one tune binding, drawn once. */
typedef struct bench {
  const kb_value *s;  /* the binding's scalars */
  hn_set set;
  ec_draw in[64];
  int has_inout;
} bench;

static int bench_open(const worker_job *j, harness *h, int g, bench *b, char *why,
                      size_t size) {
  const kb_entry *e = j->e;
  memset(b, 0, sizeof *b);
  b->s = e->bindings[g].values;
  if (e->nbuffer > 64) {
    snprintf(why, size, "runner: more than 64 buffers");
    return -1;
  }
  if (harness_alloc(&b->set, e, b->s, 0, why, size) != 0)
    return -1;
  uint64_t seed = rng_mix(WORKER_SEED, 0x74696d65ull + (uint64_t)g);
  for (int k = 0; k < e->nbuffer; k++) {
    b->has_inout |= e->buffers[k].role == KB_INOUT;
    b->in[k] = draw_spec(e, k, b->s, rng_mix(seed, (uint64_t)k), NULL);
  }
  return harness_fill(h, &b->set, b->in, 1 << KB_IN | 1 << KB_INOUT, why, size) == HN_OK
             ? 0
             : -1;
}

static void bench_close(bench *b) { harness_release(&b->set); }

/* One timed run of lib on b, restoring inout buffers first. */
static int timed(harness *h, const hn_lib *lib, bench *b, double *ms, char *why,
                 size_t size) {
  if (b->has_inout && harness_fill(h, &b->set, b->in, 1 << KB_INOUT, why, size) != HN_OK)
    return -1;
  return harness_time(h, lib, &b->set, b->s, ms, why, size) == HN_OK ? 0 : -1;
}

int timing_own_job(const worker_job *j, harness *h, const hn_lib *lib) {
  const kb_entry *e = j->e;
  double *ms = malloc(sizeof *ms * (size_t)j->reps), t;
  char why[2048];
  bench b;

  if (!ms) {
    worker_say(j, "fail", "runner: out of host memory");
    return 1;
  }
  harness_use_stream(h, 0);
  h->hold = 0;
  for (int g = 0; g < e->nbinding; g++) {
    if (!e->bindings[g].is_tune)
      continue;
    worker_say(j, "at", "timing tune %s", e->bindings[g].text);
    int bad = bench_open(j, h, g, &b, why, sizeof why) != 0, n = 0;
    for (int r = 0; r < WARMUP && !bad; r++)
      bad = timed(h, lib, &b, &t, why, sizeof why) != 0;
    for (double start = seconds_now(); n < j->reps && !bad && !spent(j, start, n); n++)
      bad = timed(h, lib, &b, &ms[n], why, sizeof why) != 0;
    bench_close(&b);
    if (bad) {
      worker_say(j, "fail", "%s [timing tune %s]", why, e->bindings[g].text);
      free(ms);
      return 1;
    }
    worker_say_times(j, "time", g, ms, NULL, n);
  }
  free(ms);
  return 0;
}

int timing_compare_job(const worker_job *j) {
  const kb_entry *e = j->e;
  harness h;
  hn_lib ref, var;
  bench b;
  char why[2048];
  double t;
  double *a = malloc(sizeof *a * (size_t)j->reps), *c = malloc(sizeof *c * (size_t)j->reps);

  if (!a || !c || harness_init(&h, e, why, sizeof why) != 0 ||
      harness_load(j->dir, &j->b->variants[0], e, &ref, why, sizeof why) != 0 ||
      harness_load(j->dir, &j->b->variants[j->variant], e, &var, why, sizeof why) != 0) {
    worker_say(j, "fail", "runner: %s", a && c ? why : "out of host memory");
    free(a);
    free(c);
    return 1;
  }
  int bad = 0;
  for (int g = 0; g < e->nbinding && !bad; g++) {
    if (!e->bindings[g].is_tune)
      continue;
    worker_say(j, "at", "interleaved timing tune %s", e->bindings[g].text);
    bad = bench_open(j, &h, g, &b, why, sizeof why) != 0;
    int n = 0;
    for (int r = 0; r < WARMUP && !bad; r++)
      bad = timed(&h, &ref, &b, &t, why, sizeof why) != 0 ||
            timed(&h, &var, &b, &t, why, sizeof why) != 0;
    for (double start = seconds_now(); n < j->reps && !bad && !spent(j, start, n); n++)
      bad = timed(&h, &ref, &b, &a[n], why, sizeof why) != 0 ||
            timed(&h, &var, &b, &c[n], why, sizeof why) != 0;
    bench_close(&b);
    if (bad)
      worker_say(j, "fail", "%s [interleaved timing tune %s]", why, e->bindings[g].text);
    else
      worker_say_times(j, "pair", g, a, c, n);
  }
  harness_free(&h);
  free(a);
  free(c);
  if (!bad)
    worker_say(j, "done", "%s", "");
  return 0;
}
