/* diag.c: the one place diagnostics are formatted. */
#define _XOPEN_SOURCE 700
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

enum { REMARKS_SEEN = 256 }; /* remarks and warnings remembered for dropping repeats */

struct diag {
  FILE *out;
  int errors, warnings;
  int show_remarks;
  diag_listener listener;
  void *listener_ctx;
  uint64_t seen[REMARKS_SEEN]; /* hashes of the remarks printed, as a ring */
  int nseen;
};

static const char *const level_name[] = {"note", "remark", "warning", "error"};

diag *diag_new(FILE *out) {
  diag *d = xmalloc(sizeof *d);
  d->out = out;
  d->errors = d->warnings = 0;
  d->show_remarks = 1;
  d->listener = NULL;
  d->listener_ctx = NULL;
  d->nseen = 0;
  return d;
}

void diag_free(diag *d) { free(d); }

static void count(diag *d, diag_level level) {
  if (level == DIAG_ERROR)
    d->errors++;
  else if (level == DIAG_WARNING)
    d->warnings++;
}

/* FNV-1a over the bytes of s, continuing from h. */
static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* Whether the remark or warning at file:line:col with this text was printed before (among
 * the last REMARKS_SEEN); remembers it otherwise. */
static int repeated(diag *d, const char *file, unsigned line, unsigned col, const char *text) {
  char where[64];
  int n = snprintf(where, sizeof where, ":%u:%u:", line, col);
  uint64_t h = fnv(14695981039346656037ull, file ? file : "", file ? strlen(file) : 0);
  h = fnv(h, where, (size_t)n);
  h = fnv(h, text, strlen(text));
  int kept = d->nseen < REMARKS_SEEN ? d->nseen : REMARKS_SEEN;
  for (int i = 0; i < kept; i++)
    if (d->seen[i] == h)
      return 1;
  d->seen[d->nseen++ % REMARKS_SEEN] = h;
  return 0;
}

void diag_report(diag *d, diag_level level, const char *file, unsigned line, unsigned col,
                 const char *fmt, ...) {
  count(d, level);
  if (level == DIAG_REMARK && !d->show_remarks && !d->listener)
    return;
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *text = xmalloc((size_t)(len > 0 ? len : 0) + 1);
  va_start(ap, fmt);
  vsnprintf(text, (size_t)(len > 0 ? len : 0) + 1, fmt, ap);
  va_end(ap);
  if (level == DIAG_REMARK && d->listener)
    d->listener(d->listener_ctx, file, line, col, text);
  if (level == DIAG_REMARK && !d->show_remarks) {
    free(text);
    return;
  }
  /* two passes refusing one step for one reason, or two variants dropped for one, say it
   * once */
  if ((level != DIAG_REMARK && level != DIAG_WARNING) || !repeated(d, file, line, col, text)) {
    if (file && line && col)
      fprintf(d->out, "%s:%u:%u: ", file, line, col);
    else if (file && line)
      fprintf(d->out, "%s:%u: ", file, line);
    else if (file)
      fprintf(d->out, "%s: ", file);
    else
      fputs("kfuse: ", d->out);
    fprintf(d->out, "%s: %s\n", level_name[level], text);
    fflush(d->out);
  }
  free(text);
}

void diag_raw(diag *d, diag_level level, const char *text) {
  count(d, level);
  fprintf(d->out, "%s\n", text);
  fflush(d->out);
}

int diag_errors(const diag *d) { return d->errors; }

void diag_set_remarks(diag *d, int show) { d->show_remarks = show; }

void diag_set_listener(diag *d, diag_listener fn, void *ctx) {
  d->listener = fn;
  d->listener_ctx = ctx;
}

void diag_memory_open(diag_memory *m) {
  m->text = NULL;
  m->len = 0;
  m->f = open_memstream(&m->text, &m->len);
  m->d = m->f ? diag_new(m->f) : NULL;
}

size_t diag_memory_first_error(diag_memory *m, const char **line) {
  if (m->f)
    fflush(m->f);
  return diag_first_error(m->text, line);
}

void diag_memory_close(diag_memory *m) {
  if (m->d)
    diag_free(m->d);
  if (m->f)
    fclose(m->f);
  free(m->text);
  *m = (diag_memory){0};
}

size_t diag_first_error(const char *text, const char **line) {
  const char *at = text ? strstr(text, "error:") : NULL;
  if (at) {
    while (at > text && at[-1] != '\n')
      at--;
  } else {
    for (at = text; at && (*at == '\n' || *at == '\r'); at++)
      ;
  }
  *line = at;
  return at ? strcspn(at, "\n") : 0;
}
