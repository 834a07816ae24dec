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
/* Prints the whole kernel definition: its header as written, then the printed body. */
void print_kernel(const kkernel *k, strbuf *b);

#endif
