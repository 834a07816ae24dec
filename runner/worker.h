/*
 * worker.h: the worker, a child process of the runner (`kfuse-runner --child ...`) that
 * does one job on the GPU and writes what it found to a result file, one line a fact:
 *
 *   at\tWHERE              where it is now (so a crash or a hang can be placed)
 *   note\tTEXT             something worth knowing that is not a failure
 *   fail\tREASON           the variant failed verification (the job stops there)
 *   reffail\tREASON        the reference failed in this job (the job stops there)
 *   time\tB\tN\tMS...      N timed runs of binding B (space-separated milliseconds)
 *   pair\tB\tN\tA...\tB... N interleaved runs of the reference (A) and the variant (B)
 *   dev\tKEY\tVALUE        a fact about the device
 *   done                   the job finished
 *
 * Text fields are escaped as in results.tsv. The runner starts one worker per job with a
 * time limit, so a crash, a hang or a broken CUDA context costs that job only.
 *
 * A verification job may take a batch of variants of one entry (VARIANT "0,3,5"): the
 * reference then runs once per trial for all of them, and each variant writes to its own
 * result file (worker_result_path), as its job alone would. The job stops at the first
 * failure of any of them; the runner then verifies the variant that failed alone (runner.c,
 * verify_batch), so that a batch's verdict is only ever "all verified".
 */
#ifndef KFUSE_RUNNER_WORKER_H
#define KFUSE_RUNNER_WORKER_H

#include <stdio.h>

#include "kfuse_bundle.h"

/* The jobs, as named on the worker's command line. */
#define WORKER_DEVICE "device"     /* describe the device */
#define WORKER_VERIFY "verify"     /* verify a variant against the reference, then time it */
#define WORKER_COMPARE "compare"   /* time the reference and a variant interleaved */
#define WORKER_SANITIZE "sanitize" /* one call of a variant, under compute-sanitizer */

/* The fixed seed everything random derives from. */
#define WORKER_SEED 0x6b66757365ull

/* The seeds of the extra shapes of entry i (draw_shapes, draw_past_shapes), so that
 * `kfuse-runner --list` shows the shapes the verifier uses. */
uint64_t worker_drawn_seed(int entry);
uint64_t worker_past_seed(int entry);

/* The fewest timed runs (or interleaved pairs) a timing stops at when its time budget is
 * spent (kfuse-runner --rep-budget): a slow reference's 50 runs would take minutes. */
#define WORKER_MIN_REPS 10

/* The most variants one verification job takes (kfuse-runner --batch). */
#define WORKER_MAX_BATCH 16

/* Flags of a job (the worker's FLAGS argument). */
#define WORKER_DETERMINISTIC 1 /* every entry must rerun bit for bit (kfuse-runner --deterministic) */

typedef struct worker_job {
  const char *dir;       /* the bundle directory */
  const kb_bundle *b;
  const kb_entry *e;     /* the entry of the job */
  int entry, variant;    /* their indexes */
  int seeds;             /* fresh input seeds per shape */
  int reps;              /* timed runs per binding; 0: no timing */
  double rep_budget_s;   /* a timing stops after this many seconds once it has
                          * WORKER_MIN_REPS runs or pairs (0: never; kfuse-runner --rep-budget) */
  int flags;             /* WORKER_DETERMINISTIC */
  FILE *out;             /* the result file (a single job's) */
  int nbatch;            /* a batch job: how many variants (0: a single job) */
  int batch[WORKER_MAX_BATCH];      /* their indexes, the reference (0) first if there */
  FILE *outs[WORKER_MAX_BATCH];     /* their result files */
} worker_job;

/* The result file of job `job` (or a compute-sanitizer tool's name) on variant stem `stem`
 * and entry `entry`: DIR/logs/STEM.ENTRY.JOB.out; the runner reads it, a batch job's
 * worker writes it. */
void worker_result_path(const char *dir, const char *stem, const char *entry, const char *job,
                        char *out, size_t size);

/* Write one line "KIND\tTEXT" (TEXT escaped) to the result file and flush it. */
void worker_say(const worker_job *j, const char *kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Write "KIND\tB\tN\tx x x..." (with a second list when b is not NULL). */
void worker_say_times(const worker_job *j, const char *kind, int binding, const double *a,
                      const double *b, int n);

/* The jobs (verify.c, timing.c). Each returns 0 when it ran to its end (a failed variant
 * included), 1 when the worker itself could not go on. */
int verify_job(const worker_job *j);
int verify_sanitize_job(const worker_job *j);
int timing_compare_job(const worker_job *j);

/* Time variant lib (already loaded) on every tune binding of j's entry, `reps` runs each,
 * writing `time` lines. Returns 0, or 1 after writing a `fail` line. */
struct harness;
struct hn_lib;
int timing_own_job(const worker_job *j, struct harness *h, const struct hn_lib *lib);

#endif
