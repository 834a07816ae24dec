/*
 * json.h: a JSON writer that places the commas (--emit=model-json, the ledger). Inside an
 * object each value has a key; inside an array `key` is NULL. With `pretty`, every value of
 * an object or array starts a line of its own, indented two spaces a level, so that two
 * documents diff line by line.
 */
#ifndef KFUSE_JSON_H
#define KFUSE_JSON_H

#include "arena.h"

typedef struct jw {
  strbuf *b;
  int pretty;
  int depth, cap;
  unsigned char *first; /* per open object/array: no value written yet */
} jw;

/* s as a JSON string ("null" for NULL). */
void js_str(strbuf *b, const char *s);
/* Starts a value: the comma before it, and its key inside an object. */
strbuf *jw_value(jw *w, const char *key);
void jw_open(jw *w, const char *key, char bracket);
void jw_close(jw *w, char bracket);
void jw_str(jw *w, const char *key, const char *s);
void jw_int(jw *w, const char *key, long long v);
void jw_bool(jw *w, const char *key, int v);
/* A finite number with up to `digits` significant digits; null when not finite. */
void jw_num(jw *w, const char *key, double v, int digits);
/* Frees the writer's own memory (not the buffer). */
void jw_free(jw *w);

#endif
