/* json.c: the JSON writer (json.h). */
#include "json.h"

#include <math.h>
#include <stdlib.h>

void js_str(strbuf *b, const char *s) {
  if (!s) {
    sb_puts(b, "null");
    return;
  }
  sb_putc(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      sb_printf(b, "\\%c", c);
    else if (c == '\n')
      sb_puts(b, "\\n");
    else if (c == '\t')
      sb_puts(b, "\\t");
    else if (c < 0x20)
      sb_printf(b, "\\u%04x", c);
    else
      sb_putc(b, (char)c);
  }
  sb_putc(b, '"');
}

static void newline(jw *w, int depth) {
  sb_putc(w->b, '\n');
  for (int i = 0; i < depth; i++)
    sb_puts(w->b, "  ");
}

strbuf *jw_value(jw *w, const char *key) {
  if (w->depth) {
    if (!w->first[w->depth - 1])
      sb_putc(w->b, ',');
    w->first[w->depth - 1] = 0;
    if (w->pretty)
      newline(w, w->depth);
  }
  if (key) {
    js_str(w->b, key);
    sb_puts(w->b, w->pretty ? ": " : ":");
  }
  return w->b;
}

void jw_open(jw *w, const char *key, char bracket) {
  sb_putc(jw_value(w, key), bracket);
  if (w->depth == w->cap) { /* host loops and conditions nest steps without a bound */
    w->cap = w->cap ? 2 * w->cap : 16;
    w->first = xrealloc(w->first, (size_t)w->cap);
  }
  w->first[w->depth++] = 1;
}

void jw_close(jw *w, char bracket) {
  w->depth--;
  if (w->pretty && !w->first[w->depth])
    newline(w, w->depth);
  sb_putc(w->b, bracket);
}

void jw_str(jw *w, const char *key, const char *s) { js_str(jw_value(w, key), s); }
void jw_int(jw *w, const char *key, long long v) { sb_printf(jw_value(w, key), "%lld", v); }
void jw_bool(jw *w, const char *key, int v) { sb_puts(jw_value(w, key), v ? "true" : "false"); }

void jw_num(jw *w, const char *key, double v, int digits) {
  if (isfinite(v))
    sb_printf(jw_value(w, key), "%.*g", digits, v);
  else
    sb_puts(jw_value(w, key), "null");
}

void jw_free(jw *w) {
  free(w->first);
  w->first = NULL;
  w->cap = w->depth = 0;
}
