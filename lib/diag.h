/*
 * diag.h: diagnostics in clang's format, `file:line:col: error|warning|note|remark: text`.
 * Library code reports and counts; only the driver turns counts into exit statuses.
 */
#ifndef KFUSE_DIAG_H
#define KFUSE_DIAG_H

#include <stddef.h>
#include <stdio.h>

typedef enum diag_level { DIAG_NOTE, DIAG_REMARK, DIAG_WARNING, DIAG_ERROR } diag_level;

typedef struct diag diag;

/* A diagnostics engine writing to out (stderr in the driver). */
diag *diag_new(FILE *out);
void diag_free(diag *d);
/* Reports at file:line:col (line or col 0: omitted). */
void diag_report(diag *d, diag_level level, const char *file, unsigned line, unsigned col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Writes a line that is already formatted (libclang's own diagnostics), counting it. */
void diag_raw(diag *d, diag_level level, const char *text);
/* Errors reported so far. */
int diag_errors(const diag *d);
/* With quiet set, remarks are not printed (they are still counted). */
void diag_set_remarks(diag *d, int show);
/* Calls fn with every remark reported from now on, printed or not (the ledger keeps the
 * passes' refusals); NULL stops. */
typedef void (*diag_listener)(void *ctx, const char *file, unsigned line, unsigned col, const char *text);
void diag_set_listener(diag *d, diag_listener fn, void *ctx);

/* The line of text (diagnostics as written) that says what went wrong: the first with
 * "error:", else the first that is not empty. *line points into text; returns its length
 * (0: none). */
size_t diag_first_error(const char *text, const char **line);

/* Diagnostics kept in memory, for a caller that shows only the first error. */
typedef struct diag_memory {
  diag *d;    /* NULL when out of memory */
  FILE *f;
  char *text;
  size_t len;
} diag_memory;
/* Opens m; m->d is NULL when that fails. */
void diag_memory_open(diag_memory *m);
/* The first error reported to m->d so far (diag_first_error). */
size_t diag_memory_first_error(diag_memory *m, const char **line);
void diag_memory_close(diag_memory *m);

#endif
