/*
 * expr.h: the small C expression language of annotations: extents, `assume`s and `init`
 * bounds. Literals, scalar names, unary - + ! ~, the binary operators of C (arithmetic,
 * shifts, comparisons, bitwise, && ||), ?: and parentheses. Values are evaluated as C
 * evaluates them: 64-bit integers (`/` truncates) unless an operand is floating.
 */
#ifndef KFUSE_EXPR_H
#define KFUSE_EXPR_H

#include <stdint.h>

#include "arena.h"

typedef enum xe_kind { XE_INT, XE_FLT, XE_NAME, XE_UNARY, XE_BINARY, XE_COND } xe_kind;

/* A parsed expression. `pos` is the byte offset of its first character in the text. */
typedef struct xexpr {
  xe_kind kind;
  int pos;
  int op;                   /* XE_UNARY/XE_BINARY: the operator (xe_op) */
  int64_t ival;             /* XE_INT */
  double fval;              /* XE_FLT */
  const char *name;         /* XE_NAME */
  struct xexpr *a, *b, *c;  /* operands; c only for XE_COND */
} xexpr;

/* Operators, with their C spelling from xexpr_op_text. */
typedef enum xe_op {
  XO_NEG, XO_PLUS, XO_NOT, XO_BNOT,
  XO_MUL, XO_DIV, XO_MOD, XO_ADD, XO_SUB, XO_SHL, XO_SHR,
  XO_LT, XO_GT, XO_LE, XO_GE, XO_EQ, XO_NE, XO_BAND, XO_BXOR, XO_BOR, XO_LAND, XO_LOR
} xe_op;

/* A value: integer unless is_float. */
typedef struct xvalue {
  int is_float;
  int64_t i;
  double f;
} xvalue;

/* Parses text[0..len). On failure returns NULL and sets *err (static text) and *errpos
 * (byte offset of the problem). The tree lives in a. */
xexpr *xexpr_parse(arena *a, const char *text, int len, const char **err, int *errpos);

/* Looks a name up: returns 1 and sets *v when bound, 0 when not. */
typedef int (*xexpr_lookup)(void *ctx, const char *name, xvalue *v);

/* Evaluates e. On failure (unbound name, division by zero, overflow) returns 0, sets *err
 * to a message in a and *errpos to the offending node's position. */
int xexpr_eval(const xexpr *e, xexpr_lookup lookup, void *ctx, xvalue *out, arena *a,
               const char **err, int *errpos);

/* Calls fn for every name in e, with its position. */
void xexpr_names(const xexpr *e, void (*fn)(void *ctx, const char *name, int pos), void *ctx);

/* Prints e as a fully parenthesised C expression. */
void xexpr_print(const xexpr *e, strbuf *b);
/* The same, computed in 64 bits: the names and integer literals a product multiplies cast
 * to long long or suffixed LL (an element count that is a product of int scalars must not
 * wrap). */
void xexpr_print_wide(const xexpr *e, strbuf *b);
const char *xexpr_op_text(int op);

/* Parses a C numeric literal (the whole of text[0..len)): signed integer or floating with
 * optional exponent. Returns 0 when it is not one. */
int xexpr_parse_literal(const char *text, int len, xvalue *out);

#endif
