/*
 * pipeline.h: the whole compiler as one function, kfuse_compile: parse, model, passes,
 * (variants, measure, select: steps 2 and 4 onward), emit.
 */
#ifndef KFUSE_PIPELINE_H
#define KFUSE_PIPELINE_H

#include "diag.h"
#include "tu.h"

typedef enum kfuse_emit {
  EMIT_CUDA,        /* the optimized CUDA (the input itself when no pass applies) */
  EMIT_MODEL,       /* the program model as text */
  EMIT_MODEL_JSON,  /* the program model as JSON */
  EMIT_LIFTED,      /* the input with every lifted kernel's body re-printed from the model */
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
  tu_options tu;
} kfuse_options;

/* Status of kfuse_compile, mapped to exit codes by the driver. */
typedef enum kfuse_status {
  KFUSE_OK = 0,
  KFUSE_INPUT_ERROR = 1,    /* the input (file, annotations) has errors: reported */
  KFUSE_USAGE_ERROR = 2,    /* an option is wrong: reported */
  KFUSE_OUTPUT_ERROR = 3,   /* the output could not be written: reported, nothing left behind */
} kfuse_status;

/* Checks the option values that need the pass registry. Reports to d. */
kfuse_status kfuse_check_options(const kfuse_options *o, diag *d);
/* Runs the pipeline on o->input and writes o->output. Reports to d. */
kfuse_status kfuse_compile(const kfuse_options *o, diag *d);
/* Writes the bundle of o->input and o->variants into o->bundle_dir. Reports to d. */
kfuse_status kfuse_bundle(const kfuse_options *o, diag *d);
/* Writes n bytes to path atomically: a temporary file in the same directory, flushed,
 * checked and renamed. "-" writes to standard output. Returns 0 on failure (reported). */
int kfuse_write_file(const char *path, const char *data, size_t n, diag *d);

#endif
