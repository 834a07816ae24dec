/*
 * pass.h: the one interface of every transformation. Each passes/<name>.c exports one
 * descriptor; passes.def lists them in their default order.
 *
 * A pass works on a variant (lib/variant.h): the model as the front end built it, seen
 * through the changes earlier passes made. It finds the sites where it is legal (`find`;
 * steps an earlier pass changed are not its to change), names the parameters it can be
 * tuned over (`params`), and applies itself at a site with chosen values (`apply`) by
 * recording model-level changes in the variant: steps removed or replaced, kernels added.
 * No pass edits source text; the variant's printer writes the file. A pass that finds
 * nothing legal changes nothing and says why, as a remark:
 * `file:line:col: remark: not fused: ... [-Rpass-missed=fuse-pointwise]`.
 */
#ifndef KFUSE_PASS_H
#define KFUSE_PASS_H

#include "../lib/diag.h"
#include "../lib/model.h"
#include "../lib/variant.h"

/* A place where a pass applies: a run of top-level steps of one entry. */
typedef struct pass_site {
  int entry;            /* index in kmodel.entries */
  int first_step, last_step; /* kstep.index of the run's first and last steps */
  const char *what;     /* a line for remarks, the recipe and the output's head */
} pass_site;

/* A tunable parameter of a pass and the values the autotuner may try; values[0] is the
 * default. */
typedef struct pass_param {
  const char *name;
  const int *values;
  int nvalues;
} pass_param;

typedef struct pass {
  const char *name;     /* as in --passes= */
  const char *summary;  /* one line */
  /* Appends the legal sites of v to *sites (in v's arena); reports missed sites as remarks
   * when `remarks` is set. Returns the number of sites. */
  int (*find)(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d);
  /* The tunable parameters; returns how many. */
  int (*params)(const pass_param **out);
  /* Applies at site with values (one per parameter) to v. Returns 0 on failure, having
   * reported why. */
  int (*apply)(variant *v, const pass_site *site, const int *values, diag *d);
  /* Run only when --passes= names it, never by default (a pass whose variants the
   * verifier has rejected for reasons not yet understood: docs/passes/<name>.md). */
  int opt_in;
  /* Its variants are made without it too: the tuner measures the program with the pass and
   * without it, the pass's on/off turning before every parameter (cuda-graph: a graph helps
   * an entry bound by its launches and may cost one that is not). */
  int optional;
  /* The passes after it see its variants parsed again: it writes its kernels as new text,
   * which they could not see otherwise (lib/pipeline.c). REPARSE_ONLY: where it applies,
   * the later passes work on its variants alone (parallelize: the serial kernels are not
   * worth tuning); REPARSE_BESIDE: on the program without it too (sink-apply), its first
   * parameter an on/off (on=0 changes nothing) that --pin may set on. */
  int reparse;
} pass;

enum { REPARSE_NO, REPARSE_ONLY, REPARSE_BESIDE };

/* The position in e->steps of the top-level step whose kstep.index is `index` (a site's
 * first or last step), or -1. */
int pass_top_position(const kentry *e, int index);

/* Whether launch st of entry e is a site of a pass that replaces one launch; NULL, or why
 * not (*quiet: not worth a remark). Sets *k to the launched kernel when there is one. */
typedef const char *(*pass_launch_match)(const kmodel *m, const kentry *e, const kstep *st, const kkernel **k,
                                         int *quiet);
/* The sites of such a pass in v: every top-level launch of every traced entry that no
 * earlier pass changed and that `match` takes, named "entry: kernel (line N)"; a launch it
 * refuses is the remark "not substituted: 'kernel' why [-Rpass-missed=name]" (with
 * `remarks`, unless quiet). Returns the number of sites (find's contract). */
int pass_each_launch(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                     int remarks, diag *d);
/* In apply, when the site is no longer there (an earlier pass of the recipe changed what it
 * covers): the warning that the variant is dropped. Returns 0, apply's answer then. */
int pass_site_gone(const variant *v, const char *name, const pass_site *site, diag *d);
/* In apply, the site's top-level step `index` (its first or last) when that is a launch no
 * earlier pass touched, else NULL. */
const kstep *pass_site_launch(const variant *v, const pass_site *site, int index);
/* In apply, the launch of a site that pass_each_launch found (its first step), matched
 * again on v: NULL, having warned that the variant is dropped, when an earlier pass changed
 * it or match no longer takes it. Sets *k as match does. */
const kstep *pass_launch_again(const variant *v, const pass_site *site, const char *name, pass_launch_match match,
                               const kkernel **k, diag *d);
/* The same, also visiting the launches inside the entry's host loops and conditions, and
 * the first launch of a host helper whose steps are launches (pass_helper_call): for a pass whose
 * replacement is one statement valid wherever the launch is, written with pass_arg_text.
 * Such a site's step is found by model_find_step_in_helpers; where that gives a helper's
 * call, the pass replaces the call (the whole helper) and keeps it as the fallback. */
int pass_each_launch_nested(const variant *v, const char *name, pass_launch_match match, pass_site **sites,
                            int *nsites, int remarks, diag *d);
/* A step as a fusing pass's check sees it in pass_each_step. pass_each_step sets the
 * inputs; check sets the outputs of a site (returning 1) or of a refusal (returning 0). */
typedef struct pass_step {
  int entry, i;              /* in: the entry's index in kmodel.entries, the step's position in its list */
  int remarks;               /* in: whether a why is told (else check need not write one) */
  const kstep *first, *last; /* site: its run's first and last steps */
  int span;                  /* site: the list positions it covers; the next step looked at is i + span (0 as 1) */
  const char *what;          /* site: its line, after "entry: " */
  unsigned line, col;        /* where the remark is told (line 0: at step i) */
  const char *why;           /* the remark, after "<refused>: ": why not, or why a site ends where it does (NULL: none) */
} pass_step;
typedef int (*pass_step_check)(const variant *v, pass_step *s, void *ctx);
/* The sites of a pass whose sites begin at a top-level step: check over every step of
 * every traced entry (ctx is its own), each site "entry: what", each why the remark
 * "<refused>: why [-Rpass-missed=name]" (with `remarks`). Returns the number of sites
 * (find's contract). */
int pass_each_step(const variant *v, const char *name, const char *refused, pass_step_check check, void *ctx,
                   pass_site **sites, int *nsites, int remarks, diag *d);
/* Whether st, a step of entry ei, is a kernel launch that no earlier pass of v touched:
 * the steps a pass may rewrite. */
int pass_untouched_launch(const variant *v, int ei, const kstep *st);
/* In a check of pass_each_step, its step when that is an untouched launch, else NULL (no
 * site begins there, and nothing is told). */
const kstep *pass_step_launch(const variant *v, const pass_step *ps);
/* Whether call (a KS_HOSTCALL) is a helper a pass may replace whole for one of its
 * launches: it returns void, calls nothing but its steps, which are kernel launches (the
 * rest of its body computes values), and the call is a statement of its own; with more
 * than one launch, each after the first must be writable where the call stands
 * (pass_launch_text). */
int pass_helper_call(const kmodel *m, const kentry *e, const kstep *call);
/* Launch st, a step of helper call, written where the call stands: the kernel with its
 * grid, block and stream, and its arguments (pass_arg_text), without a semicolon; NULL
 * when one of them has no text there. */
const char *pass_launch_text(const kmodel *m, const kentry *e, const kstep *call, const kstep *st);
/* Replaces site launch st (inside helper call, or none) by `if (!cond) <the launch>`, or
 * by `cond` alone when fallback is 0: in place of the launch; in place of the helper's call
 * when the launch is its one step (the call as the fallback); for the first launch of a
 * helper of several, `if (!cond) <the call>; else do { <its other launches written out> }
 * while (0);` (without a fallback, a block of cond and the others: the helper may then be left
 * unused), leaving out the launches i (of the helper's steps) with bit i of `folded` set:
 * what cond does too. Returns 0 when the statement was changed already. */
int pass_replace_launch(variant *v, int entry, const kstep *call, const kstep *st, const char *cond, int fallback,
                        unsigned folded);
/* The text that stands for launch st's argument i (i = -1: its stream) at the statement
 * the pass replaces: the argument as written, without a helper call; inside one, the
 * caller's argument where the launch passes a helper parameter through, or a scalar's
 * value over the entry's own names; NULL when there is none. */
const char *pass_arg_text(const kmodel *m, const kentry *e, const kstep *call, const kstep *st, int i);
/* The statement a site's replacement takes the place of: the helper's call, else st. */
const kstep *pass_replaced(const kstep *call, const kstep *st);

/* ---- printing what passes emit ---- */

/* k's parameter list as declared, without parentheses: "const float *x, int n". */
void pass_print_params(const kkernel *k, strbuf *b);
/* The same without __restrict__ (__restrict, restrict) in the types: for a kernel whose
 * threads pass values through memory across barriers, where nvcc may move a load of
 * restrict-qualified memory above the barrier (docs/passes/parallelize.md). */
void pass_print_params_unrestricted(const kkernel *k, strbuf *b);
/* A launch of kernel `name` with st's shared memory, stream and arguments, grid `grid` and
 * block `block` (NULL: st's own), without a semicolon. */
void pass_print_launch(const kstep *st, const char *name, const char *grid, const char *block, strbuf *b);
/* The same with the arguments `args` ("a, b"; NULL: none) instead of st's: a kernel that
 * takes other buffers (a prologue's inputs). */
void pass_print_launch_args(const kstep *st, const char *name, const char *grid, const char *block, const char *args,
                            strbuf *b);
/* The same with arguments added after st's: extra is ", a, b" (its leading ", " dropped
 * where st has none). */
void pass_print_launch_extra(const kstep *st, const char *name, const char *grid, const char *block, const char *extra,
                             strbuf *b);

/* The registry, in default order (passes.def). */
extern const pass *const pass_list[];
extern const int pass_count;
/* The pass named name, or NULL. */
const pass *pass_find(const char *name);

#endif
