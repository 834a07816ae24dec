/*
 * bundle.h: writes a bundle (docs/bundle-format.md): the directory kfuse-runner builds,
 * verifies and times on a GPU host. The reference, each variant verbatim, a call shim per
 * variant, and the manifest as C data (bundle.c, runner/kfuse_bundle.h's ABI) and as text.
 */
#ifndef KFUSE_BUNDLE_H_
#define KFUSE_BUNDLE_H_

#include "diag.h"
#include "model.h"
#include "tu.h"

/* A variant to put into the bundle: a source file implementing the same entries, or the
 * text of one that kfuse's passes made. */
typedef struct bundle_variant {
  const char *path;     /* the source as given; NULL for a pass-made variant */
  const char *text;     /* the pass-made variant's source (path NULL) */
  size_t size;
  const char *recipe;   /* what produced it, e.g. "user:cand.cu", "fuse-pointwise(...)@..." */
  int known;            /* a pass-made variant the records already hold: not measured again */
} bundle_variant;

/* The bytes of the file at path (malloc'd, NUL-terminated, *size without the NUL), or NULL
 * after reporting `path: error: cannot open file: ...` or `cannot read file` to d (when d
 * is not NULL). */
char *bundle_slurp(const char *path, size_t *size, diag *d);

/* Writes the bundle for reference model m (parsed from m->path) into dir, creating it.
 * Each user variant is parsed and must define every annotated entry of m as an extern "C"
 * function with the same parameter and return types (a pass-made variant keeps the
 * entries' definitions by construction). Returns 0 after reporting to d; a failed bundle
 * leaves no directory behind. */
int bundle_write(const kmodel *m, const char *dir, const bundle_variant *variants, int nvariants,
                 const tu_options *opt, diag *d);

/* Removes dir and everything below it (links are not followed). */
void bundle_remove_tree(const char *dir);

/* The SHA-256 of n bytes as 64 hex digits in out[65]. */
void bundle_sha256(const void *data, size_t n, char out[65]);

#endif
