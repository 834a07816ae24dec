/*
 * tu.h: the front end. Owns libclang's CXIndex and CXTranslationUnit: parses one CUDA
 * file in CUDA host mode against the toolkit in /usr/local/cuda, passes clang's own
 * diagnostics through in clang's format, and builds the program model (model.h).
 */
#ifndef KFUSE_TU_H
#define KFUSE_TU_H

#include "diag.h"
#include "model.h"

typedef struct tu tu;

/* Options of the front end. */
typedef struct tu_options {
  const char *cuda_path;      /* default /usr/local/cuda */
  const char **extra_args;    /* -I, -D passed through to clang */
  int nextra_args;
} tu_options;

/* The bytes of the file at path (malloc'd, NUL-terminated) and their count; NULL after
 * reporting to d when it cannot be read. */
char *tu_read_file(const char *path, unsigned *size, diag *d);

/* Parses path. Returns NULL after reporting to d when the file cannot be read or clang
 * reports errors. Keeps the file's bytes. */
tu *tu_parse(const char *path, const tu_options *opt, diag *d);
/* Parses text (size bytes, copied) as if it were the file at path: its #include lines are
 * found from path's folder, its diagnostics name path. As tu_parse otherwise. */
tu *tu_parse_text(const char *path, const char *text, unsigned size, const tu_options *opt, diag *d);
void tu_free(tu *t);

/* Builds the program model: annotated entries (annotations checked, errors to d), their
 * launch sequences, and every kernel, lifted or opaque with a reason. Returns NULL when
 * an error was reported. The model lives as long as t. */
kmodel *tu_model(tu *t, diag *d);

/* Appends the canonical signature of the extern "C" function definition named name,
 * "ret(T1, T2, ...)" with top-level qualifiers dropped, to sig, and its name's line and
 * column (either may be NULL). Returns 0 when the file defines no such function. */
int tu_signature(tu *t, const char *name, strbuf *sig, unsigned *line, unsigned *col);

#endif
