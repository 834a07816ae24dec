/* rewrite.c: the edit list, kept sorted by offset. */
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct edit {
  unsigned begin, end;
  char *text;
  int seq;               /* insertion order, to keep same-offset insertions stable */
} edit;

struct rewriter {
  const char *text;
  unsigned size;
  edit *v;
  int n, cap;
};

rewriter *rw_new(const char *text, unsigned size) {
  rewriter *r = xmalloc(sizeof *r);
  memset(r, 0, sizeof *r);
  r->text = text;
  r->size = size;
  return r;
}

void rw_free(rewriter *r) {
  if (!r)
    return;
  for (int i = 0; i < r->n; i++)
    free(r->v[i].text);
  free(r->v);
  free(r);
}

int rw_replace(rewriter *r, unsigned begin, unsigned end, const char *repl) {
  if (begin > end || end > r->size)
    return 0;
  /* Overlap: a shared interior byte. Insertions touch no byte, but one may not fall
   * strictly inside a replaced range. */
  for (int i = 0; i < r->n; i++) {
    const edit *e = &r->v[i];
    if (begin < e->end && e->begin < end)
      return 0;
    if (begin == end && e->begin < begin && begin < e->end)
      return 0;
    if (e->begin == e->end && begin < e->begin && e->begin < end)
      return 0;
  }
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 8;
    r->v = xrealloc(r->v, sizeof *r->v * (size_t)r->cap);
  }
  size_t n = strlen(repl);
  char *t = xmalloc(n + 1);
  memcpy(t, repl, n + 1);
  int at = r->n;
  /* Keep sorted by begin, then by insertion order; a replacement after insertions at
   * its start. */
  while (at > 0 && r->v[at - 1].begin > begin)
    at--;
  memmove(r->v + at + 1, r->v + at, sizeof *r->v * (size_t)(r->n - at));
  r->v[at] = (edit){begin, end, t, r->n};
  r->n++;
  return 1;
}

int rw_count(const rewriter *r) { return r->n; }

void rw_apply(const rewriter *r, strbuf *out) {
  unsigned pos = 0;
  for (int i = 0; i < r->n; i++) {
    const edit *e = &r->v[i];
    sb_putn(out, r->text + pos, e->begin - pos);
    sb_puts(out, e->text);
    pos = e->end;
  }
  sb_putn(out, r->text + pos, r->size - pos);
}
