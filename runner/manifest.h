/*
 * manifest.h: a bundle's manifest (the `kfuse_bundle` data of bundle.so, kfuse_bundle.h)
 * as the runner reads it: loading and checking it, and the facts derived from it that
 * every part of the runner needs (a shape's size, its text, a variant's file stem).
 */
#ifndef KFUSE_RUNNER_MANIFEST_H
#define KFUSE_RUNNER_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "kfuse_bundle.h"

typedef struct manifest {
  void *handle;        /* dlopen handle of bundle.so; owns everything b points to */
  const kb_bundle *b;  /* the manifest */
} manifest;

/* Load the compiled manifest so_path (bundle.so), check its ABI version and validate it.
 * Returns 0, or -1 with a message in err (and m left closed). */
int manifest_open(const char *so_path, manifest *m, char *err, size_t size);
void manifest_close(manifest *m);

/* Check that b is complete and consistent: strings and tables present, enums in range,
 * one `tune` binding at least, every binding within the assumes and with every buffer
 * non-empty. Returns 0, or -1 with the first problem in err. */
int manifest_validate(const kb_bundle *b, char *err, size_t size);

/* Bytes of all of e's buffers at scalar values s; -1 when some buffer has no elements
 * (or the total overflows). */
int64_t manifest_shape_bytes(const kb_entry *e, const kb_value *s);

/* "B=3 K=77 N=129": the scalar values s as a binding line writes them. */
void manifest_shape_text(const kb_entry *e, const kb_value *s, char *buf, size_t size);

/* The file stem of a variant's source ("v1.cu" -> "v1"), which names its shim
 * (<stem>.shim.cu), its library (<stem>.so) and its logs. */
void manifest_stem(const kb_variant *v, char *buf, size_t size);

/* Index of the variant whose name or stem is `name`; -1 when none. */
int manifest_find_variant(const kb_bundle *b, const char *name);

/* Index of e's smallest binding (fewest bytes). */
int manifest_smallest_binding(const kb_entry *e);

#endif
