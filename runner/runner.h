/*
 * runner.h: kfuse-runner, the measurer of kfuse (docs/runner.md). Given a bundle
 * directory (docs/bundle-format.md) it builds the reference and every variant with nvcc,
 * verifies each variant against the reference and times it, each in a worker process of
 * its own with a time limit, re-times the best verified variants against the reference
 * interleaved, and writes DIR/results.tsv and DIR/device.tsv. The driver
 * (driver/kfuse-runner.c) only parses options and turns the status into an exit code.
 */
#ifndef KFUSE_RUNNER_H
#define KFUSE_RUNNER_H

typedef struct runner_options {
  const char *dir;   /* the bundle directory */
  double timeout_s;  /* wall-clock limit of each worker and each nvcc run (seconds) */
  int reps;          /* timed runs per binding, and interleaved pairs (at least 50 is the rule) */
  double rep_budget_s; /* a timing of one binding, or an interleaved comparison, stops after
                        * this many seconds once it has WORKER_MIN_REPS runs (0: never) */
  int seeds;         /* fresh input seeds per shape, before the fixed trials (verify.c) */
  int deterministic; /* 1: every variant must rerun bit for bit, as with `deterministic` */
  const char *only;  /* NULL, or the one variant to build, verify and time (besides "ref") */
  int sanitize;      /* 1: compute-sanitizer memcheck and racecheck on the kept variant */
  int time;          /* 0: verify only */
  int prune;         /* 1: leave out variants that spill where others of their passes do not */
  int retime;        /* final candidates re-timed against the reference: the best, and the next
                      * ones within 10% of its first-round score, up to this many in all */
  double deadline_s; /* > 0: no variant starts its verification after this many seconds */
  int batch;         /* variants of an entry verified by one worker, sharing the reference's
                      * runs (worker.h); 1: each alone */
  int list;          /* 1: print the manifest and the shapes that would be drawn; run nothing */
  int build_only;    /* 1: build every variant for this device, then stop (a later run reuses
                      * the builds) */
  int jobs;          /* nvcc processes at a time */
  int verbose;
  const char *gpus;  /* --gpus all|N|LIST: run the shards of dir one per GPU (gpus.h), or NULL */
} runner_options;

/* What a run came to; the driver maps these to exit statuses (docs/runner.md). */
enum runner_status {
  RUNNER_OK = 0,          /* results written; variants may have failed: read results.tsv */
  RUNNER_REF_FAILED = 1,  /* results written, but the reference failed for some entry */
  RUNNER_USAGE = 2,       /* bad options (an --only naming no variant, included) */
  RUNNER_BAD_BUNDLE = 3,  /* the bundle is unreadable, inconsistent or of another ABI */
  RUNNER_NO_DEVICE = 4    /* no usable GPU, no nvcc, or results could not be written */
};

/* The defaults: 300 s, 50 reps within 10 s, 3 seeds, timing and pruning on, 3 re-timed, as
 * many jobs as processors. */
void runner_options_init(runner_options *o);

/* Run the bundle o->dir. Messages go to stderr (msg.h), a summary to stdout. */
enum runner_status runner_run(const runner_options *o);

/* The worker (worker.h): the driver calls this when its first argument is "--child",
 * with argv[0] being "--child". Returns the worker's exit status. */
int runner_child_main(int argc, char **argv);

#endif
