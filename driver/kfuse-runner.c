/*
 * kfuse-runner: build, verify and time a kfuse bundle on this machine's GPU.
 * Options and exit statuses only; the work is in runner/ (runner.h). docs/runner.md says
 * what each option and status means.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfuse_bundle.h"
#include "results.h"
#include "gpus.h"
#include "runner.h"
#include "worker.h"

#ifndef KFUSE_VERSION
#define KFUSE_VERSION "unknown"
#endif

static const char usage[] =
    "usage: kfuse-runner [options] DIR\n"
    "\n"
    "Build the bundle DIR (written by `kfuse bundle IN.cu -o DIR`) with nvcc, verify every variant\n"
    "against the reference and time it on this machine's GPU, each in a worker process with\n"
    "a time limit, and write DIR/results.tsv and DIR/device.tsv.\n"
    "\n"
    "options:\n"
    "  --timeout SECONDS  wall-clock limit of each worker and each nvcc run (default 300)\n"
    "  --reps N           timed runs per tune binding and interleaved pairs (default 50)\n"
    "  --rep-budget SECS  stop a timing after SECS seconds once it has 10 runs or pairs\n"
    "                     (default 10; 0: always --reps)\n"
    "  --seeds N          fresh input seeds per verified shape, before the fixed\n"
    "                     trials (default 3)\n"
    "  --deterministic    every variant must rerun bit for bit, as if every entry said\n"
    "                     `deterministic`\n"
    "  --only VARIANT     build, verify and time only this variant (and the reference)\n"
    "  --sanitize         run compute-sanitizer memcheck and racecheck on the kept variant\n"
    "  --deadline SECONDS no variant starts its verification after this many seconds\n"
    "                     from the start (builds included); those left are not measured\n"
    "                     and have no rows in results.tsv\n"
    "  --no-time          verify only\n"
    "  --batch N          variants of an entry verified by one worker, sharing the\n"
    "                     reference's runs (default 13: the reference and kfuse's\n"
    "                     default budget of 12; at most 16; 1: each alone); a\n"
    "                     batch in which any variant fails is verified again one by one\n"
    "  --retime N         re-time the best verified variant against the reference, and\n"
    "                     the next ones within 10% of its first-round speedup, up to N in\n"
    "                     all (default 3; 1: the best alone)\n"
    "  --no-prune         measure variants that spill too (by default a variant whose\n"
    "                     kernels spill is left out when one of the same passes with\n"
    "                     other parameters does not)\n"
    "  --gpus all|N|LIST  DIR is a set of shards (kfuse bundle --shards N): run them one\n"
    "                     per GPU at a time (all, the first N, or the devices 0,2,3),\n"
    "                     each shard's runner with the other options; a device whose\n"
    "                     runner finds no usable GPU is taken out (docs/multi-gpu.md)\n"
    "  --build-only       build every variant for this machine's GPU and stop; a later\n"
    "                     run reuses the builds (to build many bundles at once, then\n"
    "                     measure them one at a time)\n"
    "  --list             print the manifest and the shapes the verifier would draw;\n"
    "                     run nothing on the GPU\n"
    "  -j N               nvcc processes at a time (default: one per processor)\n"
    "  -v                 say what is happening\n"
    "  --help             this text\n"
    "  --version          the version\n"
    "\n"
    "exit status: 0 results written (variants may have failed: see results.tsv); 1 results\n"
    "written, but the reference failed; 2 usage; 3 bad bundle; 4 no usable GPU or nvcc, or\n"
    "the results could not be written.\n";

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "kfuse-runner: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(kfuse-runner --help lists the options)\n");
  return RUNNER_USAGE;
}

/* A whole-number argument >= min, or -1. */
static long number(const char *s, long min) {
  char *end;
  long v = s ? strtol(s, &end, 10) : -1;
  return s && *s && !*end && v >= min ? v : -1;
}

int main(int argc, char **argv) {
  runner_options o;

  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return runner_child_main(argc - 1, argv + 1);

  runner_options_init(&o);
  /* with --gpus, each shard's runner gets the other options as they were given */
  static char *pass[128];
  int npass = 0;
  if (argc > 120)
    return bad_usage("too many arguments (%s)", "at most 120");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    long v;
    if (a[0] == '-' && strcmp(a, "--gpus") != 0) {
      pass[npass++] = argv[i];
      if (next && next[0] != '-' && (!strcmp(a, "--timeout") || !strcmp(a, "--deadline") || !strcmp(a, "--reps") ||
                                     !strcmp(a, "--seeds") || !strcmp(a, "-j") || !strcmp(a, "--only") ||
                                     !strcmp(a, "--retime") || !strcmp(a, "--batch") ||
                                     !strcmp(a, "--rep-budget")))
        pass[npass++] = argv[i + 1];
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("kfuse-runner %s (bundle ABI %d, verifier %d)\n", KFUSE_VERSION, KB_ABI_VERSION, KFUSE_VERIFIER_VERSION);
      return 0;
    } else if (strcmp(a, "--timeout") == 0) {
      if ((v = number(next, 1)) < 0)
        return bad_usage("--timeout needs a whole number of seconds, not '%s'", next ? next : "");
      o.timeout_s = (double)v;
      i++;
    } else if (strcmp(a, "--deadline") == 0) {
      if ((v = number(next, 1)) < 0)
        return bad_usage("--deadline needs a whole number of seconds, not '%s'", next ? next : "");
      o.deadline_s = (double)v;
      i++;
    } else if (strcmp(a, "--reps") == 0) {
      if ((v = number(next, 1)) < 0)
        return bad_usage("--reps needs a count of at least 1, not '%s'", next ? next : "");
      o.reps = (int)v;
      i++;
    } else if (strcmp(a, "--rep-budget") == 0) {
      if ((v = number(next, 0)) < 0)
        return bad_usage("--rep-budget needs a whole number of seconds (0: none), not '%s'", next ? next : "");
      o.rep_budget_s = (double)v;
      i++;
    } else if (strcmp(a, "--seeds") == 0) {
      if ((v = number(next, 1)) < 0 || v > 60)
        return bad_usage("--seeds needs a count from 1 to 60, not '%s'", next ? next : "");
      o.seeds = (int)v;
      i++;
    } else if (strcmp(a, "-j") == 0) {
      if ((v = number(next, 1)) < 0)
        return bad_usage("-j needs a count of at least 1, not '%s'", next ? next : "");
      o.jobs = (int)v;
      i++;
    } else if (strcmp(a, "--only") == 0) {
      if (!next)
        return bad_usage("--only needs a variant name%s", "");
      o.only = next;
      i++;
    } else if (strcmp(a, "--deterministic") == 0) {
      o.deterministic = 1;
    } else if (strcmp(a, "--sanitize") == 0) {
      o.sanitize = 1;
    } else if (strcmp(a, "--no-time") == 0) {
      o.time = 0;
    } else if (strcmp(a, "--retime") == 0) {
      if ((v = number(next, 1)) < 0)
        return bad_usage("--retime needs a whole number of variants, at least 1, not '%s'", next ? next : "");
      o.retime = (int)v;
      i++;
    } else if (strcmp(a, "--batch") == 0) {
      if ((v = number(next, 1)) < 0 || v > WORKER_MAX_BATCH)
        return bad_usage("--batch needs a count from 1 to 16, not '%s'", next ? next : "");
      o.batch = (int)v;
      i++;
    } else if (strcmp(a, "--no-prune") == 0) {
      o.prune = 0;
    } else if (strcmp(a, "--build-only") == 0) {
      o.build_only = 1;
    } else if (strcmp(a, "--list") == 0) {
      o.list = 1;
    } else if (strcmp(a, "-v") == 0) {
      o.verbose = 1;
    } else if (strcmp(a, "--gpus") == 0) {
      if (!next)
        return bad_usage("--gpus needs all, a count, or a list of device indices (0,2,3)%s", "");
      o.gpus = next;
      i++;
    } else if (a[0] == '-') {
      return bad_usage("unknown option '%s'", a);
    } else if (o.dir) {
      return bad_usage("one bundle directory at a time ('%s' is a second)", a);
    } else {
      o.dir = a;
    }
  }
  if (!o.dir)
    return bad_usage("no bundle directory given%s", "");
  if (o.gpus && (o.list || o.only))
    return bad_usage("--gpus runs whole shards; %s goes with one bundle", o.list ? "--list" : "--only");
  return o.gpus ? (int)runner_run_gpus(&o, pass, npass) : (int)runner_run(&o);
}
