/*
 * arena.h: memory with a lifetime. Everything a translation unit's model needs is
 * allocated from one arena and freed with it; nothing is freed piecemeal.
 */
#ifndef KFUSE_ARENA_H
#define KFUSE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct arena arena;

/* Returns a new, empty arena (aborts on out-of-memory, like every allocator here). */
arena *arena_new(void);
/* Frees the arena and everything allocated from it. */
void arena_free(arena *a);
/* Returns n zeroed bytes that live as long as the arena. */
void *arena_alloc(arena *a, size_t n);
/* Copies the n bytes at s, adding a terminating NUL. */
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(arena *a, const char *fmt, va_list ap);

/* Grows *vec (elements of size elem, *len used, *cap allocated) to hold one more and
 * returns a pointer to the new zeroed element. The old storage stays in the arena. */
void *arena_push(arena *a, void *vec_ptr, int *len, int *cap, size_t elem);
#define ARENA_PUSH(a, vec, len, cap) \
  ((__typeof__(vec))arena_push((a), &(vec), &(len), &(cap), sizeof *(vec)))

/* A growable string in malloc'd memory, for output buffers. */
typedef struct strbuf {
  char *s;
  size_t len, cap;
} strbuf;
void sb_putn(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_putc(strbuf *b, char c);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf *b);

/* Internal bug: reports kfuse's own file and line, separate from user errors, and aborts. */
#define KFUSE_BUG(...) kfuse_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void kfuse_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);

#endif
