/*
 * annot.h: the contract's `// kfuse:` directives, found with PCRE2 and checked against
 * the entry's signature. Every violation is a `file:line:col: error:` at the directive.
 */
#ifndef KFUSE_ANNOT_H
#define KFUSE_ANNOT_H

#include "diag.h"
#include "model.h"

/* One `// kfuse:` comment line of the file. */
typedef struct annot_line {
  unsigned line;        /* 1-based */
  unsigned line_off;    /* byte offset of the line's start */
  unsigned dir_off;     /* byte offset of the directive (after "kfuse:" and blanks) */
  unsigned dir_len;
  int used;             /* attached to an entry */
} annot_line;

typedef struct annot_set annot_set;

/* A run of directives above one entry. */
typedef struct annot_lines {
  annot_line **v;
  int n;
} annot_lines;

struct cxctx;

/* Finds every `// kfuse:` line of c's file: `//` comment lines of code, not those inside
 * block comments, string literals or code the preprocessor skipped. Reports a line it
 * cannot match to c's diagnostics. The set lives in c's model's arena. */
annot_set *annot_scan(struct cxctx *c);
/* The directives in the run of comment lines directly above the declaration that starts
 * at byte decl_off; marks them used. */
annot_lines annot_above(annot_set *as, unsigned decl_off);
/* The start of the run of whole `//` comment lines directly above the line holding byte at
 * of text (that line's start when there is none); *line, when not NULL, gets the start of
 * at's line. */
unsigned annot_comment_top(const char *text, unsigned at, unsigned *line);
/* Parses lines into e->annot and e->params' roles and checks them against e's signature
 * and each other; reports every violation to d. */
void annot_entry(annot_set *as, annot_lines lines, kentry *e, diag *d);
/* Reports directives that are attached to no entry. */
void annot_check_unused(annot_set *as, diag *d);

/* Evaluates an integer expression over a binding's scalar values. Returns 0 and sets
 * *err on failure. */
int annot_eval(const kentry *e, const kbinding *b, const xexpr *x, xvalue *out, arena *a,
               const char **err, int *errpos);

#endif
