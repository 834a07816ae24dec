/* diag.c: the one place diagnostics are formatted. */
#include "diag.h"

#include <stdarg.h>

#include <stdlib.h>

#include "arena.h"

struct diag {
  FILE *out;
  int errors, warnings;
  int show_remarks;
};

static const char *const level_name[] = {"note", "remark", "warning", "error"};

diag *diag_new(FILE *out) {
  diag *d = xmalloc(sizeof *d);
  d->out = out;
  d->errors = d->warnings = 0;
  d->show_remarks = 1;
  return d;
}

void diag_free(diag *d) { free(d); }

static void count(diag *d, diag_level level) {
  if (level == DIAG_ERROR)
    d->errors++;
  else if (level == DIAG_WARNING)
    d->warnings++;
}

void diag_report(diag *d, diag_level level, const char *file, unsigned line, unsigned col,
                 const char *fmt, ...) {
  count(d, level);
  if (level == DIAG_REMARK && !d->show_remarks)
    return;
  if (file && line && col)
    fprintf(d->out, "%s:%u:%u: ", file, line, col);
  else if (file && line)
    fprintf(d->out, "%s:%u: ", file, line);
  else if (file)
    fprintf(d->out, "%s: ", file);
  else
    fputs("kfuse: ", d->out);
  fprintf(d->out, "%s: ", level_name[level]);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(d->out, fmt, ap);
  va_end(ap);
  fputc('\n', d->out);
  fflush(d->out);
}

void diag_raw(diag *d, diag_level level, const char *text) {
  count(d, level);
  fprintf(d->out, "%s\n", text);
  fflush(d->out);
}

int diag_errors(const diag *d) { return d->errors; }

void diag_set_remarks(diag *d, int show) { d->show_remarks = show; }
