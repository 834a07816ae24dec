/*
 * records.h: tuning records (DESIGN.md, "Tuning records"; docs/records.md). Every verdict
 * and timing kfuse-runner writes into a bundle (results.tsv, device.tsv) is imported into an
 * SQLite database, keyed by what determines it: the reference source's hash, the entry, the
 * variant's recipe, the binding, the GPU model and SM count, the driver, the nvcc version and
 * the nvcc flags. The records are a cache (rec_best: a build without a GPU applies a variant
 * verified earlier on the same GPU model), training data and a regression baseline.
 *
 * Several processes may open one database and import at once (WAL mode, a busy timeout,
 * one IMMEDIATE transaction per import).
 */
#ifndef KFUSE_RECORDS_H
#define KFUSE_RECORDS_H

#include <stdio.h>

#include "diag.h"

/* The schema version this kfuse writes (PRAGMA user_version). */
#define REC_SCHEMA_VERSION 2

typedef struct rec_db rec_db;

/* The variant rec_best chose, with the provenance of the measurements behind it. Strings
 * belong to the rec_db and stay valid until rec_close. */
typedef struct rec_choice {
  int found;                      /* 1: a variant qualified; 0: none did (the rest is empty) */
  const char *recipe;             /* what produced the variant, "fuse+tile(32)" */
  const char *variant;            /* its name in the bundle it was measured from, "v3" */
  const char *variant_file;       /* its source file in that bundle, "v3.cu" */
  double speedup;                 /* geometric mean over the tune bindings of reference time /
                                     variant time (the runner's interleaved re-timing) */
  double ci_lo, ci_hi;            /* geometric means of those bindings' 95% interval bounds
                                     (a summary, not an interval of the mean itself) */
  int ntune, ncheck;              /* tune bindings (all `faster`), check bindings (all `ok`) */
  long long run_id;               /* the run that measured it (run.id in the database) */
  const char *measured_at;        /* when the runner wrote results.tsv, "2025-01-02T03:04:05Z" */
  const char *bundle;             /* the bundle directory it was imported from */
  const char *gpu;                /* the device, "NVIDIA H200" */
  int sm_count;                   /* its multiprocessors */
  const char *compute_capability; /* "9.0" */
  const char *driver_version;     /* "580.159.04" */
  const char *runtime_version;    /* the CUDA runtime, "13.0" */
  const char *nvcc_version;       /* "Cuda compilation tools, release 13.0, V13.0.88" */
  const char *nvcc_flags;         /* the flags every variant was built with */
  const char *libs;               /* the bundle's extra link flags, "-lcublas" (may be "") */
} rec_choice;

/* Opens the records database at path, creating it, the directories above it and its schema
 * when needed. Returns NULL after reporting to d. d must outlive the result: rec_dump and
 * rec_variant_libs report through it. A database of another schema version (a newer
 * kfuse's) is refused. */
rec_db *rec_open(const char *path, diag *d);
/* Closes db; the strings of every rec_choice it filled go with it. NULL is ignored. */
void rec_close(rec_db *db);

/* Imports bundle_dir's manifest.txt, variant sources, device.tsv and results.tsv in one
 * transaction: a run row, its variants with their sources, and one measurement row per
 * results row (the newest run's row wins where a key was measured before). Importing the
 * same files again changes nothing. Returns 1, or 0 after reporting `file:line: error:` to
 * d, with nothing written. */
int rec_import(rec_db *db, const char *bundle_dir, diag *d);

/* Chooses the best recorded variant of entry in the reference source whose SHA-256 is
 * source_hash (64 hex digits), on a gpu_name device with sm_count multiprocessors (any
 * count when sm_count <= 0): among the recipes measured with one driver, nvcc version and
 * flags, those whose every tune binding is `faster` and every check binding `ok`, the one
 * with the highest geometric-mean speedup (ties: the newest run, then the recipe's text).
 * Returns 1 with *out filled; 0 with out->found = 0 when none qualifies (nothing reported)
 * or on a database error (reported to d). */
int rec_best(rec_db *db, const char *source_hash, const char *entry, const char *gpu_name,
             int sm_count, rec_choice *out, diag *d);

/* The GPU models the records hold measurements of source_hash on, in name order, at most max
 * of them, into out (strings belonging to db). Returns how many, or -1 after a database
 * error (reported to d). */
int rec_gpus(rec_db *db, const char *source_hash, const char **out, int max, diag *d);

/* The one GPU model the records hold measurements of source_hash on. NULL when they hold
 * none or several (nothing reported), or on a database error (reported to d). The string
 * belongs to db. */
const char *rec_only_gpu(rec_db *db, const char *source_hash, diag *d);

/* The source of the variant that recipe made from the reference whose SHA-256 is
 * source_hash, as imported with the newest run that still has measurements of it; *n is its
 * length in bytes. Returns a malloc'd copy with a NUL after it, for the caller to free;
 * NULL when the records hold none (nothing reported) or on a database error (reported to
 * d). */
char *rec_variant_source(rec_db *db, const char *source_hash, const char *recipe, size_t *n,
                         diag *d);

/* The extra link flags (the manifest's `libs`) of that same run: "" when none, NULL when the
 * records hold no such variant (or on a database error, reported to rec_open's diag). The
 * string belongs to db. */
const char *rec_variant_libs(rec_db *db, const char *source_hash, const char *recipe);

/* Merges the records at from_path into db, as importing each of its runs again would: a
 * run db has (by digest) is skipped, and where both hold a measurement of one key the one
 * measured later stays. from_path must exist and have db's schema; it is only read.
 * Returns 1, or 0 after reporting (nothing merged). *added: how many of its runs db did not
 * have (some may carry no measurement db keeps, and are dropped). */
int rec_merge(rec_db *db, const char *from_path, int *added, diag *d);

/* Writes the records at db_path to out as text that travels (records_io.c): JSON lines, a
 * header, the variants' sources, then the runs with their variants and measurements, in a
 * fixed order. Returns 0 after reporting. */
int rec_export(const char *db_path, FILE *out, diag *d);
/* text (n bytes) compressed in the xz format into *out (*out_n bytes; the caller frees it):
 * the same bytes for the same text everywhere. Returns 0 after an error, reported. */
int rec_compress_xz(const char *text, size_t n, char **out, size_t *out_n, diag *d);
/* Reads records that rec_export wrote (path) and merges them into db as rec_merge does.
 * A malformed line is `path:LINE:1: error: ...` and nothing is merged. *added: the runs
 * new to db. */
int rec_import_text(rec_db *db, const char *path, int *added, diag *d);

/* One measurement, for the ledger. Strings belong to the rec_db; numbers are NAN when the
 * row has none. */
typedef struct rec_row {
  const char *recipe, *binding, *kind, *status, *reason, *measured_at;
  double median_ms, speedup, ci_lo, ci_hi;
  double p10_ms, p90_ms;    /* the spread of the timing samples (tune rows) */
  const char *source_hash, *entry, *gpu;
  const char *source_name;  /* the source as its run's bundle named it */
  const char *variant;      /* the variant's name in its run's bundle (v1, v2, ...: the rules' order) */
} rec_row;

/* Every tune measurement of a variant (not the reference's) in the records, ordered by
 * source, entry, GPU model and binding, then recipe: the ranker's training groups. Returns
 * how many (*rows, in db's strings), or -1 after a database error. */
int rec_tune_rows(rec_db *db, rec_row **rows, diag *d);

/* The measurements of entry of the source source_hash on gpu_name, the latest run of each
 * recipe only, ordered by recipe, tune bindings before check ones, then binding. Returns
 * how many (*rows, in db's strings), or -1 after a database error (reported to d). */
int rec_rows(rec_db *db, const char *source_hash, const char *entry, const char *gpu_name, rec_row **rows,
             diag *d);

/* The verifier version that vouches for recipe's variant of source_hash on gpu_name: the
 * newest of the runs that measured it and of an ok re-verification (0: runners before
 * versions). -1 after a database error (reported). */
int rec_verifier_version(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name, diag *d);
/* Records a re-verification of that variant by the verifier version: ok, or quarantined
 * with reason. A quarantined variant stays so (rec_best never chooses it again). Returns 0
 * after a database error (reported). */
int rec_set_verification(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name, int version,
                         int ok, const char *reason, diag *d);
/* One row per (source, recipe) measured on gpu_name that `kfuse records verify` checks:
 * none of its rows failed, not the reference, not quarantined; ordered by source, then
 * recipe. Returns how many (*rows, in db's strings), or -1 after a database error. */
int rec_to_verify(rec_db *db, const char *gpu_name, rec_row **rows, diag *d);
/* Whether that variant is quarantined on gpu_name; *reason: why (db's string). */
int rec_quarantine_reason(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name,
                          const char **reason);

/* Writes every run and its measurements to out as readable tables, oldest run first.
 * Returns 1, or 0 after reporting a database or write error (to rec_open's diag). */
int rec_dump(rec_db *db, FILE *out);

#endif
