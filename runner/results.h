/*
 * results.h: what the runner writes for kfuse to read back (docs/bundle-format.md):
 * DIR/results.tsv, one row per variant x entry x binding, and DIR/device.tsv, the machine.
 * Both are tab-separated with a header line; a field never holds a tab or a newline
 * (results_escape writes them as \t, \n, \r and \\). Files are written to a temporary name
 * and renamed, so a failure never leaves half a file.
 */
#ifndef KFUSE_RUNNER_RESULTS_H
#define KFUSE_RUNNER_RESULTS_H

#include <stddef.h>

#include "stats.h"

enum result_status {
  RESULT_OK,     /* verified (and timed, when it is not the final candidate) */
  RESULT_FAILED, /* not verified: reason says which check, where */
  RESULT_SLOWER, /* the final candidate, not faster beyond the noise on this binding */
  RESULT_FASTER  /* the final candidate, faster: the speedup's whole interval is above 1 */
};

typedef struct result_row {
  const char *variant;  /* the variant's name */
  const char *entry;    /* the entry's name */
  const char *binding;  /* the binding's text, "B=3 K=77 N=129" */
  int is_tune;          /* 1: a tune binding; 0: a check binding */
  int status;           /* enum result_status */
  char reason[1024];    /* why it failed, or notes on a verified row; may be empty */
  stats_summary time;   /* the variant's own timing; time.n is 0 when not timed */
  double speedup;       /* reference time / variant time; NAN when not timed */
  double ci_lo, ci_hi;  /* the speedup's 95% interval (final candidate only); else NAN */
} result_row;

/* The verifier's version: raised whenever the runner's verification changes what it can
 * reject (a check added or made stricter). device.tsv carries it, the records keep it per
 * run, and kfuse re-verifies a record of an older verifier before it first applies it on a
 * GPU (docs/records.md, "Verifier versions and quarantine"). 1: session 18's verifier (the
 * checks of docs/runner.md, "Verification"). */
#define KFUSE_VERIFIER_VERSION 1

typedef struct device_info {
  char name[256];        /* "NVIDIA H200" */
  int sm_count;          /* multiprocessors */
  int cc_major, cc_minor;
  char driver[64];       /* the NVIDIA driver, "580.159.04" (or the CUDA driver API level) */
  char cuda_driver[32];  /* the CUDA version the driver supports, "13.0" */
  char runtime[32];      /* the CUDA runtime the runner uses, "13.0" */
  long long l2_bytes, memory_bytes;
  char nvcc[256];        /* nvcc's version line, "Cuda compilation tools, release 13.0, V13.0.88" */
  char nvcc_flags[1024]; /* the flags every variant was built with */
  char pci_bus_id[32];   /* which device of the host, "0000:1b:00.0" ("" when unknown) */
} device_info;

const char *results_status_name(int status);

/* Copy s into out (size bytes) with \ tab newline and CR written as \\ \t \n \r. */
void results_escape(const char *s, char *out, size_t size);
/* Undo results_escape in place. */
void results_unescape(char *s);

int results_write(const char *path, const result_row *rows, int n, char *err, size_t size);
int results_write_device(const char *path, const device_info *d, char *err, size_t size);

#endif
