/*
 * sumprod.h: a kernel that sums products of two float loads in a loop nest, one sum per
 * thread, and stores it, read with conv-cudnn's index algebra (passes/conv_cudnn.c): the
 * thread's coordinates decoded into mixed-radix digits (flat indices, `r /= W` chains,
 * grid-stride loops, a block coordinate alone, pointer locals), the loops' variables and
 * the entry's scalars as atoms. conv-cudnn matches a convolution on it; gemm-cublas a GEMM
 * whose batch is two digits of one coordinate (attention's `b = bh / NH, h = bh % NH`).
 */
#ifndef KFUSE_SUMPROD_H
#define KFUSE_SUMPROD_H

#include "../lib/model.h"
#include "poly.h"

/* What an atom of the reading stands for. */
typedef enum sp_kind {
  SP_SIZE,                      /* the entry's scalars and quotients of them: uniform */
  SP_THREAD,                    /* a coordinate of the thread (a digit of one) */
  SP_LOOP,                      /* a loop's variable */
  SP_OTHER                      /* anything else (a quotient of a coordinate) */
} sp_kind;

typedef struct sumprod {
  const kkernel *k;
  atoms A;                      /* its ub pointers point into ub[] below */
  poly ub[MAX_ATOMS];           /* the atom is in [0, ub); bad when unknown */
  sp_kind kind[MAX_ATOMS];
  int ta, tb;                   /* the kernel parameters of the product's two loads */
  poly ia, ib;                  /* ... and their indices */
  int yparam;                   /* the stored parameter */
  poly iy;                      /* ... and the index */
  const kexpr *scale;           /* the store's acc * scale, or NULL */
  const kexpr *bias;            /* a load added to the sum (its init or in the store), or NULL */
  poly ibias;
  const kexpr *fill;            /* a masked sum: the constant stored where the mask fails */
  poly mask[4];                 /* the sum is stored where every mask[i] >= 0 */
  int nmasks;
  int nloops, nconds, nquots, nterms;
} sumprod;

/* Reads launch st's kernel as a sum of products; fills *out. NULL, or why not (*quiet: not
 * worth a remark, the kernel sums no products in a loop). */
const char *sumprod_read(const kmodel *m, const kentry *e, const kstep *st, sumprod *out, int *quiet);

/* Whether p names only the entry's scalars (and quotients of them) and launch arguments
 * ("a:" atoms, keyed by the text that writes them at the launch's call): printable at the
 * launch, over the entry's names (size atoms expanded by sumprod_read). */
int sumprod_printable(const sumprod *s, const poly *p);

#endif
