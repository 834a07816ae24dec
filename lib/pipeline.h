/*
 * pipeline.h: the whole compiler as one function, kfuse_compile: parse, model, passes,
 * (variants, measure, select: steps 2 and 4 onward), emit.
 */
#ifndef KFUSE_PIPELINE_H
#define KFUSE_PIPELINE_H

#include "bundle.h"
#include "diag.h"
#include "ledger.h"
#include "records.h"
#include "tu.h"

/* New variants measured when --budget says nothing. */
#define KFUSE_DEFAULT_BUDGET 12

typedef enum kfuse_emit {
  EMIT_CUDA,        /* the optimized CUDA (the input itself when no pass applies) */
  EMIT_MODEL,       /* the program model as text */
  EMIT_MODEL_JSON,  /* the program model as JSON */
  EMIT_LIFTED,      /* the input with every lifted kernel's body re-printed from the model */
  EMIT_TRANSFORMED, /* the program after the passes with their defaults: not verified, not measured */
  EMIT_REFERENCE,   /* a C file's annotated functions as one-thread kernels and their entries */
} kfuse_emit;

typedef struct kfuse_options {
  const char *input;
  const char *output;       /* a path, or "-" for standard output */
  kfuse_emit emit;
  const char *passes;       /* comma-separated names; NULL: the default list; "": none */
  const char *print_after;  /* a pass name, or NULL */
  int verbose;
  int remarks;              /* print remarks (-R) */
  const char *bundle_dir;   /* --bundle DIR: write a bundle instead of an output file */
  const char **variants;    /* --variant FILE (repeatable): user variants for the bundle */
  int nvariants;
  const char *records;      /* --records DB: the tuning records (default kfuse_default_records()) */
  const char *target_gpu;   /* --target-gpu NAME: the GPU model to select for without a GPU here */
  const char *argv0;        /* how kfuse was started, to find kfuse-runner beside it */
  int deterministic;        /* kfuse check --deterministic: variants must rerun bit for bit */
  int max_variants;         /* --budget (--max-variants): new variants made (0: the default) */
  int budget_s;             /* --budget=Ns: the runner's deadline in seconds (0: none) */
  int resume;               /* skip the variants the records hold (the one-shot path unless
                             * --remeasure; --bundle with --records) */
  const char *ranker;       /* --ranker MODEL: order the new variants by the learned ranker;
                             * RANKER_BUILTIN: the model built into kfuse (ranker.h); NULL or
                             * "none": the rule order */
  const char *resume_gpu;   /* the GPU model whose records count (NULL: --target-gpu, else the
                             * one model the records hold for the source) */
  const char *ledger;       /* --ledger FILE: write the decision ledger (JSON) there too */
  int no_measure;           /* --no-measure: select from the records only, even with a GPU here */
  int shards;               /* kfuse bundle --shards N (> 1): N bundles DIR/shard-1..N, the
                             * variants dealt among them in turn, each with the reference */
  const char **pins;        /* --pin PASS.PARAM=VALUE (repeatable): that parameter has one value */
  int npins;
  int until_known;          /* kfuse_variants walks past the budget until every known recipe is
                             * made, adding no more new ones (kfuse regress) */
  tu_options tu;
} kfuse_options;

/* Status of kfuse_compile, mapped to exit codes by the driver. */
typedef enum kfuse_status {
  KFUSE_OK = 0,
  KFUSE_INPUT_ERROR = 1,    /* the input (file, annotations) has errors: reported */
  KFUSE_USAGE_ERROR = 2,    /* an option is wrong: reported */
  KFUSE_OUTPUT_ERROR = 3,   /* the output could not be written: reported, nothing left behind */
  KFUSE_NO_GPU = 4,         /* the command needs a GPU here and there is none */
} kfuse_status;

/* Checks the option values that need the pass registry. Reports to d. */
kfuse_status kfuse_check_options(const kfuse_options *o, diag *d);
/* Runs the pipeline on o->input and writes o->output. Reports to d. */
kfuse_status kfuse_compile(const kfuse_options *o, diag *d);
/* The variants the passes make of m, one per combination of their parameters (in m's
 * arena), until the budget of new ones: a variant whose recipe is among known[0..nknown)
 * is made, marked known and not counted. With lg, the sites the passes found and refused
 * are kept there. Returns how many, or -1 after a usage error. */
int kfuse_variants(const kfuse_options *o, const kmodel *m, bundle_variant **out, ledger *lg,
                   const char *const *known, int nknown, diag *d);
/* The recipes that the records (o->records, else the default) hold measurements of for
 * every entry of m on the GPU model o->resume_gpu (else o->target_gpu, else the one model
 * they hold for m's source), in m's arena. Returns how many (0 without records or a GPU
 * model), or -1 after a database error. */
int kfuse_known_recipes(const kfuse_options *o, const kmodel *m, const char ***out, diag *d);
/* Writes the bundle of o->input, o->variants and the passes' variants into o->bundle_dir
 * (with o->resume, those the records hold are left out). *nmeasure (when not NULL): how
 * many variants besides the reference it holds. Reports to d. */
kfuse_status kfuse_bundle(const kfuse_options *o, int *nmeasure, diag *d);
/* The records database used when --records is not given: $KFUSE_RECORDS, else
 * $XDG_CACHE_HOME/kfuse/records.db or ~/.cache/kfuse/records.db. */
const char *kfuse_default_records(void);
/* Measures o's variants (the user's and the npass that the passes make) when a GPU is
 * here, then asks the records for the best variant of m on the target GPU. Returns 1 with
 * the variant (under its evidence header) in out; 0 when the input stays (a remark says
 * why); -1 after an error. With lg, builds the ledger (ledger_build) on every path. */
int kfuse_select(const kfuse_options *o, const kmodel *m, int npass, strbuf *out, ledger *lg, diag *d);
/* kfuse check: bundles cand as a variant of o->input, runs it on the GPU here, imports
 * the results and prints the evidence. Without a GPU, says so (KFUSE_NO_GPU). */
kfuse_status kfuse_check(const kfuse_options *o, const char *cand, diag *d);
/* Whether a CUDA GPU answers here (nvidia-smi lists one): 1 with its name in name[n]. */
int kfuse_have_gpu(char *name, size_t n);
/* kfuse-runner beside this kfuse (argv0), or $KFUSE_RUNNER: a malloc'd path, or NULL. */
char *kfuse_find_runner(const char *argv0);
/* Runs kfuse-runner on the bundle dir (with --deterministic and --no-time when asked, and
 * --deadline when deadline_s > 0) and waits; with log, its output goes to that file.
 * Returns 0 after reporting a runner that did not finish. */
int kfuse_run_runner(const char *runner, const char *dir, int deterministic, int no_time, int deadline_s,
                     const char *log, diag *d);
/* Creates the directory $TMPDIR (else /tmp)/kfuse-STEM-XXXXXX: 1 with its path in out[n];
 * 0 after reporting the failure to d (when d is not NULL). */
int kfuse_mkdtemp(const char *stem, char *out, size_t n, diag *d);
/* The first failure of each variant in the runner's results.tsv under dir: fail[i] (a
 * malloc'd "entry binding B: reason", or NULL) for variant v(i+1); seen[i]: it has rows.
 * Returns 0 when the file cannot be read. */
int kfuse_read_verdicts(const char *dir, int n, char **fail, int *seen);
/* The verifier version of that kfuse-runner (its --version says "verifier N"); 0 for a
 * runner from before versions. */
int kfuse_runner_verifier_version(const char *runner);
/* Re-verifies the recorded variants recipes[0..n) of the source m (SHA-256 hash) on the GPU
 * here (gpu): one run of the runner with --no-time over the reference and their recorded
 * texts. Each verdict goes into the records as a verification at version: ok, or
 * quarantined with the verifier's line. A line per variant is added to report. Returns how
 * many were quarantined, or -1 when the run failed (reported; nothing recorded). */
int kfuse_reverify(const kfuse_options *o, rec_db *db, const kmodel *m, const char *hash, const char *gpu, int version,
                   const char *const *recipes, int n, strbuf *report, diag *d);
/* kfuse records verify: re-verifies every recorded variant of the GPU model here that is
 * neither failed nor quarantined, source by source, from the records alone. */
kfuse_status kfuse_records_verify(const kfuse_options *o, diag *d);
/* Imports a bundle's results into the records. */
kfuse_status kfuse_import(const char *records, const char *bundle_dir, diag *d);
/* kfuse explain FILE: prints the ledger that FILE carries (or is). */
kfuse_status kfuse_explain(const char *path, diag *d);
/* kfuse records merge INTO FROM...: merges each FROM into the records INTO. */
kfuse_status kfuse_records_merge(const char *into, const char *const *from, int nfrom, diag *d);
/* kfuse records export DB -o FILE: the records as text that travels. */
kfuse_status kfuse_records_export(const char *db, const char *output, diag *d);
/* kfuse records import INTO.db FILE...: records exported elsewhere, merged into INTO.db. */
kfuse_status kfuse_records_import(const char *into, const char *const *files, int nfiles, diag *d);
/* kfuse learn --records DB -o MODEL: trains the ranker on the records. */
kfuse_status kfuse_learn(const char *records, const char *model, int rounds, diag *d);
/* kfuse learn --evaluate: the ranker held out level by level against the rule order and
 * random order (ranker_evaluate), the table on stdout, the curves as CSV in curves. */
kfuse_status kfuse_learn_evaluate(const char *records, int rounds, int min_variants, const char *curves, diag *d);
/* Prints the records. */
kfuse_status kfuse_show_records(const char *records, diag *d);
/* Writes n bytes to path atomically: a temporary file in the same directory, flushed,
 * checked and renamed. "-" writes to standard output. Returns 0 on failure (reported). */
int kfuse_write_file(const char *path, const char *data, size_t n, diag *d);

#endif
