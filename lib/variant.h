/*
 * variant.h: a variant of the input under construction. Passes change the program at the
 * level of the model: launch-sequence steps removed or replaced by new ones, new kernels
 * added; the variant records these changes against the model (which stays as the front end
 * built it, so that one model serves every variant) and names itself by its recipe, the
 * ordered pass applications that made it. variant_print writes the whole file: untouched
 * text byte for byte, each edited statement of an entry reprinted, each new kernel printed
 * above the entry that uses it. The same recipe on the same input gives the same bytes.
 */
#ifndef KFUSE_VARIANT_H
#define KFUSE_VARIANT_H

#include "diag.h"
#include "model.h"

/* One change of a statement: the top-level step `step` of entry `entry`, replaced by text
 * (a call expression, without its semicolon) or removed with its statement when text is
 * NULL. */
typedef struct vedit {
  int entry;
  int step;              /* kstep.index */
  const char *text;
  int whole;             /* text replaces the whole statement (variant_replace_statement) */
} vedit;

/* A change of text outside every entry's body: bytes [begin, end) of the file (in a host
 * helper's body, which every call of the helper shares, or an entry's head) replaced by
 * text. */
typedef struct vtext {
  unsigned begin, end;
  const char *text;
} vtext;

/* A kernel a pass added, printed above the annotations of the entry that uses it. */
typedef struct vkernel {
  int entry;
  int early;             /* a helper printed after the file's #include lines instead */
  const char *name;
  const char *text;      /* the whole definition, ending in a newline */
} vkernel;

typedef struct variant {
  const kmodel *m;
  arena *a;
  vedit *edits;
  int nedits, cap_edits;
  vtext *texts;
  int ntexts, cap_texts;
  unsigned *decls;       /* names of host variables whose declarators are removed */
  int ndecls, cap_decls;
  vkernel *kernels;
  int nkernels, cap_kernels;
  const char **includes; /* headers the added code needs: "<cublas_v2.h>" */
  int nincludes, cap_includes;
  strbuf recipe;         /* "fuse-pointwise(block=256,vec=4)" */
  strbuf applied;        /* one line per application, for the file's head */
} variant;

/* A variant of m with no change yet (its arena is m's). */
variant *variant_new(const kmodel *m);
void variant_free(variant *v);
/* Whether step (a kstep.index) of entry has been changed already. */
int variant_touched(const variant *v, int entry, int step);
/* Removes step's statement, or replaces its call with text. Returns 0 when the step was
 * changed already (passes do not edit each other's edits). */
int variant_remove_step(variant *v, int entry, const kstep *st);
int variant_replace_step(variant *v, int entry, const kstep *st, const char *text);
/* Replaces step's whole statement, its semicolon and the rest of its line included, by
 * text: whole lines of statements, each indented, the last ending with a newline. Returns 0
 * when the step's call is not a statement of its own on its own line, or was changed already. */
int variant_replace_statement(variant *v, int entry, const kstep *st, const char *text);
/* Replaces bytes [begin, end) outside every entry's body (a host helper's text, for every
 * call of the helper alike; an entry's head) by text; the same change twice is one. Returns 0 when it overlaps
 * another such change. */
int variant_replace_text(variant *v, unsigned begin, unsigned end, const char *text);
/* Removes the declarator of the host variable whose name is at offset name (a scratch
 * pointer a pass made unused) from its declaration; the whole declaration when every
 * declarator goes. */
void variant_remove_decl(variant *v, unsigned name);
/* Adds a kernel definition (text copied) above entry. */
void variant_add_kernel(variant *v, int entry, const char *name, const char *text);
/* Whether v has added a kernel (or helper) named name: for a helper emitted once a file. */
int variant_has_kernel(const variant *v, const char *name);
/* Adds a helper's text (a pass's CUDA file, passes/cuda/) at the top of the kernels, once
 * per variant however many sites use it. */
void variant_add_helper(variant *v, const char *name, const char *text);
/* The same, printed after the file's #include lines, before its own code: a helper that the
 * file's host helpers call (a pass's variant_replace_text). A helper added already moves
 * there. */
void variant_add_early_helper(variant *v, const char *name, const char *text);
/* Adds `#include header` ("<cublas_v2.h>") after the file's last #include line, unless the
 * file or the variant includes it already. */
void variant_add_include(variant *v, const char *header);
/* Appends "pass(params)" to the recipe and a line to the head. */
void variant_note(variant *v, const char *recipe_part, const char *line);
/* Whether the recipe holds recipe_part whole ("cuda-graph@fine"): a change made once per
 * entry that the variant has already made. */
int variant_noted(const variant *v, const char *recipe_part);
/* A kernel name not yet used in the file or the variant: base, or base_2, base_3... */
const char *variant_fresh_name(const variant *v, const char *base);
/* Writes the variant's file to out. Returns 0 when an edit cannot be placed (reported). */
int variant_print(const variant *v, strbuf *out, diag *d);

#endif
