/* arena.c: a bump allocator in 64 KiB chunks, plus the growable string. */
#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 64 * 1024 };

typedef struct chunk {
  struct chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} chunk;

struct arena {
  chunk *head;
};

void kfuse_bug(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: internal error in kfuse: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nPlease report this bug with the input that caused it.\n", stderr);
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    KFUSE_BUG("out of memory allocating %zu bytes", n);
  return p;
}

void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p)
    KFUSE_BUG("out of memory allocating %zu bytes", n);
  return p;
}

arena *arena_new(void) {
  arena *a = xmalloc(sizeof *a);
  a->head = NULL;
  return a;
}

void arena_free(arena *a) {
  if (!a)
    return;
  for (chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

void *arena_alloc(arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  chunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > CHUNK ? n : CHUNK;
    c = xmalloc(sizeof *c + size);
    c->size = size;
    c->used = 0;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *arena_printf(arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = arena_vprintf(a, fmt, ap);
  va_end(ap);
  return p;
}

void *arena_push(arena *a, void *vec_ptr, int *len, int *cap, size_t elem) {
  void **vec = vec_ptr;
  if (*len == *cap) {
    int ncap = *cap ? *cap * 2 : 4;
    void *n = arena_alloc(a, elem * (size_t)ncap);
    if (*len)
      memcpy(n, *vec, elem * (size_t)*len);
    *vec = n;
    *cap = ncap;
  }
  return (char *)*vec + elem * (size_t)(*len)++;
}

void sb_putn(strbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void sb_puts(strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
void sb_putc(strbuf *b, char c) { sb_putn(b, &c, 1); }

void sb_printf(strbuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
  }
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  va_end(ap);
}

void sb_free(strbuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
