/*
 * rewrite.h: the edit list. Byte-offset replacements over a source text; overlapping
 * edits are refused; untouched text is copied byte for byte, so with no edit the output
 * is the input.
 */
#ifndef KFUSE_REWRITE_H
#define KFUSE_REWRITE_H

#include "arena.h"

typedef struct rewriter rewriter;

/* A rewriter over text[0..size) (kept, not copied: it must outlive the rewriter). */
rewriter *rw_new(const char *text, unsigned size);
void rw_free(rewriter *r);
/* Replaces [begin, end) with repl (copied). Insertion when begin == end. Returns 0 and
 * changes nothing when the range is out of bounds or overlaps an earlier edit (two
 * insertions at one offset are kept in the order given). */
int rw_replace(rewriter *r, unsigned begin, unsigned end, const char *repl);
int rw_count(const rewriter *r);
/* Appends the edited text to out. */
void rw_apply(const rewriter *r, strbuf *out);

#endif
