/*
 * prune.h: static pruning of built variants, before anything runs on the GPU. Every variant
 * is compiled with `-Xptxas -v`; ptxas's report in its build log gives each kernel's
 * registers, shared memory, stack frame and spills. A variant whose kernels spill is not
 * measured when another variant of the same passes (the same recipe but for the passes'
 * parameters) spills no more than nothing: its parameters made it spill, and the other
 * one covers that recipe. The runner records such a variant as failed with a reason that
 * starts with "pruned: " (docs/runner.md).
 */
#ifndef KFUSE_RUNNER_PRUNE_H
#define KFUSE_RUNNER_PRUNE_H

#include <stddef.h>

/* What ptxas reported for one variant's device code, over all of its functions. */
typedef struct ptxas_usage {
  int functions;          /* functions ptxas reported properties for */
  int max_registers;      /* the most registers one kernel uses */
  long max_smem;          /* the most static shared memory one kernel uses (bytes) */
  long max_stack;         /* the largest stack frame (bytes) */
  long spill_stores;      /* bytes of spill stores, summed over the functions */
  long spill_loads;       /* bytes of spill loads, summed */
  char worst[256];        /* the function with the most spill bytes (its mangled name) */
} ptxas_usage;

/* Read ptxas's `-v` report from the text of a build log. Returns the number of functions
 * found (0: no report, u zeroed). */
int ptxas_read_text(const char *text, ptxas_usage *u);

/* The same, from the file at path; 0 when it cannot be read. */
int ptxas_read_file(const char *path, ptxas_usage *u);

/* The recipe with its parameter lists taken out: "fuse-pointwise(block=256,vec=4)@f#3+x"
 * becomes "fuse-pointwise@f#3+x", the key of the variants that differ only in
 * parameters. */
void prune_recipe_key(const char *recipe, char *key, size_t size);

/*
 * Decide which of n built variants to prune. keys[i] is variant i's recipe key (NULL for
 * the reference and for variants that are never pruned), u[i] its usage, built[i] 1 when
 * it built. On return, by[i] is the index of the variant that made i redundant, or -1
 * when i is kept. Returns how many were pruned.
 */
int prune_spills(const char *const *keys, const ptxas_usage *u, const int *built, int n,
                 int *by);

/* "pruned: spills 48 bytes (stores 24, loads 24) in F, 64 registers; V2 of the same
 * passes does not spill" into buf. */
void prune_reason(const ptxas_usage *u, const char *other, char *buf, size_t size);

#endif
