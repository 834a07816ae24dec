/*
 * print.h: turns lifted kernels back into CUDA. Expressions are printed with explicit
 * parentheses wherever C's precedence would otherwise be needed, so the printed text has
 * the meaning of the tree, whatever the source's spacing or macros were.
 */
#ifndef KFUSE_PRINT_H
#define KFUSE_PRINT_H

#include "model.h"

/* Prints e in the context of kernel k. */
void print_expr(const kkernel *k, const kexpr *e, strbuf *b);
/* Prints the kernel's body (braces included) at the given indentation. The kernel must
 * be lifted. */
void print_body(const kkernel *k, strbuf *b);
/* A hook for print_body_hooked: called for every statement s of the body, at its depth;
 * returns 1 when it printed s itself (whole lines, indented to depth, ending in a
 * newline), 0 to let the printer print it. */
typedef int (*print_hook)(void *ctx, const kstmt *s, strbuf *b, int depth);
/* print_body, with hook consulted before each statement. */
void print_body_hooked(const kkernel *k, print_hook hook, void *ctx, strbuf *b);
/* A hook for expressions: called for every expression e the printer reaches (operands
 * included); returns 1 when it printed e itself, as one postfix expression or in
 * parentheses, 0 to let the printer print it. */
typedef int (*print_expr_hook)(void *ctx, const kexpr *e, strbuf *b);
typedef struct print_hooks {
  print_hook stmt;        /* may be NULL */
  print_expr_hook expr;   /* may be NULL */
  void *ctx;              /* passed to both */
} print_hooks;
/* print_body with both hooks; print_expr_with prints one expression with them (for a hook
 * that prints the operands of what it replaces). */
void print_body_with(const kkernel *k, const print_hooks *h, strbuf *b);
void print_expr_with(const kkernel *k, const print_hooks *h, const kexpr *e, strbuf *b);
/* Prints statement s of k at depth (whole lines) with the hooks, except that the statement
 * hook is not asked about s itself: for a hook that prints a statement as it is and adds
 * to it. */
void print_stmt_with(const kkernel *k, const print_hooks *h, const kstmt *s, int depth, strbuf *b);
/* Two spaces per level of depth: the printer's indentation, for passes that print lines of
 * their own among its statements. */
void print_indent(strbuf *b, int depth);
/* Prints the whole kernel definition: its header as written, then the printed body. */
void print_kernel(const kkernel *k, strbuf *b);

#endif
