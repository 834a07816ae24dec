/*
 * prologue.h: fuse-prologue's site and emission (fuse_prologue.c), for the passes that
 * re-map a kernel and take the pointwise run before it along (row-scan, row-warps).
 *
 * prologue_check finds the site whose run starts at top-level step `at`; prologue_begin
 * writes the __device__ function that computes the intermediate P at an element, and
 * gives the hooks that print the consumer's expressions and statements with every load of
 * P (and every pointer local into P) replaced, the consumer's parameter list without P and
 * with the run's inputs, and its launch's arguments to match; print the consumer's code
 * with print_expr_with(&o->x.fk, &o->hooks, ...) (names from o->x.fk). prologue_commit
 * removes the run and the intermediates' allocations from the variant.
 */
#ifndef KFUSE_PROLOGUE_H
#define KFUSE_PROLOGUE_H

#include "../lib/print.h"
#include "pwrun.h"

enum { PROLOGUE_MAX_PTRS = 16 };

typedef struct prologue {
  prun r;                 /* the run */
  const kstep *cst;       /* the consumer's launch */
  const kkernel *k;       /* its kernel */
  int pbuf;               /* P in r.bufs */
  int pparam;             /* P's parameter in the consumer */
  int ptrs[PROLOGUE_MAX_PTRS]; /* pointer locals into P */
  const kexpr *ptr_off[PROLOGUE_MAX_PTRS]; /* their offsets (NULL: P itself) */
  int nptrs;
  int span;               /* top-level steps from the run's first to the consumer */
} prologue;

typedef struct prologue_out {
  prun_emit x;            /* x.fk: the consumer's kernel with the run's parameters added */
  const prologue *s;
  const char *fn;         /* the __device__ function */
  const char *fn_args;    /* its arguments before the element index, each with ", " */
  int ptr_at[PROLOGUE_MAX_PTRS]; /* per pointer local: the var holding its offset */
  print_hooks hooks;
  strbuf text;            /* the function's definition (add the kernel after it) */
  strbuf params;          /* the consumer's parameters, without parentheses */
  strbuf args;            /* its launch's arguments */
} prologue_out;

/* Whether the run that starts at top-level step `at` of entry ei may be computed where
 * the next kernel that reads it loads it: 1 with *s filled; 0 with *why (NULL: nothing
 * to speak of). */
int prologue_check(const variant *v, int ei, int at, prologue *s, const char **why);
/* The top-level step of entry ei where a run starts that the launch st may take as its
 * prologue, with *s filled; -1 when none does. */
int prologue_before(const variant *v, int ei, const kstep *st, prologue *s);
/* Writes the function and the lists (name: the consumer's new name, a prefix for the
 * function's). */
void prologue_begin(variant *v, prologue *s, const char *name, prologue_out *o);
/* Removes the run's steps and the intermediates' allocations and frees. 0 on overlap. */
int prologue_commit(variant *v, int entry, const prologue *s);
void prologue_end(prologue_out *o);

#endif
