/*
 * regress.h: `kfuse regress`, the rules' regression report (docs/regress.md). For every
 * source of a corpus, the passes run again and their variants are compared with what the
 * tuning records say the rules made before: per recipe unchanged, differing in bytes, new,
 * or lost. No GPU is needed, so a CI job can say which programs a rule change touched.
 * With a GPU here, what changed is measured beside the baseline's choice, and regressions
 * (a changed variant that fails verification, a best variant slower beyond the spread) are
 * flagged; --bisect names the pass decision behind a lost choice by pinning.
 */
#ifndef KFUSE_REGRESS_H
#define KFUSE_REGRESS_H

#include "pipeline.h"

typedef struct regress_options {
  const char *corpus;       /* a directory searched for .cu files, or one .cu file */
  const char *junit;        /* NULL, or the JUnit XML report's path */
  int fail_on_change;       /* exit status 1 when some source changed */
  int measure;              /* with a GPU here, measure what changed (--no-measure: 0) */
  int bisect;               /* --bisect: name the pass decision behind a lost baseline choice */
} regress_options;

/* Writes the report to stdout (and r->junit). base gives the records (--records), the GPU
 * model (--target-gpu), the passes and the parser's -I/-D. Returns KFUSE_OK, or
 * KFUSE_INPUT_ERROR when a source no longer goes through kfuse, when one regressed
 * (measured), or (with fail_on_change) when one changed; KFUSE_USAGE_ERROR or KFUSE_OUTPUT_ERROR as usual. */
kfuse_status kfuse_regress(const kfuse_options *base, const regress_options *r, diag *d);

#endif
