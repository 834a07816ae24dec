/*
 * pass.h: the one interface of every transformation. Each passes/<name>.c exports one
 * descriptor; passes.def lists them in their default order.
 *
 * A pass finds the sites where it is legal (`find`), says which parameters it can be
 * tuned over (`params`), and applies itself at a site with chosen parameters (`apply`)
 * by adding edits to the rewriter. A pass that finds nothing legal changes nothing and
 * says why, as a remark: `file:line:col: remark: not fused: ... [-Rpass-missed=fuse]`.
 */
#ifndef KFUSE_PASS_H
#define KFUSE_PASS_H

#include "../lib/diag.h"
#include "../lib/model.h"
#include "../lib/rewrite.h"

/* A place where a pass applies: an entry, and steps or kernels within it. */
typedef struct pass_site {
  int entry;            /* index in kmodel.entries */
  int first_step, last_step; /* flat step range the site covers */
  int kernel;           /* the kernel concerned, or -1 */
  const char *what;     /* a line for remarks and the output header */
} pass_site;

/* A tunable parameter of a pass and the values the autotuner may try. */
typedef struct pass_param {
  const char *name;
  const int *values;
  int nvalues;
} pass_param;

typedef struct pass {
  const char *name;     /* as in --passes= */
  const char *summary;  /* one line */
  /* Appends the legal sites to *sites (in m's arena); reports missed sites as remarks. */
  int (*find)(kmodel *m, pass_site **sites, int *nsites, diag *d);
  /* The tunable parameters. */
  int (*params)(const pass_param **out);
  /* Applies at site with values (one per parameter) through rw. Returns 0 on failure,
   * having reported why. */
  int (*apply)(kmodel *m, const pass_site *site, const int *values, rewriter *rw, diag *d);
} pass;

/* The registry, in default order (passes.def). */
extern const pass *const pass_list[];
extern const int pass_count;
/* The pass named name, or NULL. */
const pass *pass_find(const char *name);

#endif
