/*
 * tiles.h: a kernel that stages tiles of its operands in shared memory, read back as the
 * loads that filled them. The textbook tiled GEMM (level2/029, level3/002)
 *
 *   for (k0 = 0; k0 < K; k0 += T) {
 *     As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0;
 *     Bs[threadIdx.y][threadIdx.x] = ...;
 *     __syncthreads();
 *     for (kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[threadIdx.x][kk];
 *     __syncthreads();
 *   }
 *   if (row < M && col < N) C[row * N + col] = acc;
 *
 * computes, in every thread that stores, what `for (k = 0; k < K; ++k) acc += A[row * K +
 * k] * B[col * K + k]` computes (in another order): the *view* below. It is never printed:
 * a pass that reads it (gemm-cublas, through sumprod.h) keeps the launch as its fallback.
 */
#ifndef KFUSE_TILES_H
#define KFUSE_TILES_H

#include "../lib/model.h"

/* Launch st's kernel k with its shared tiles read back: *view is k with another body (and no
 * shared memory or barrier), allocated in the model's arena. NULL, or why not (*tiled: k
 * has a tile loop's form, so that the reason is worth a remark). */
const char *tiles_read_back(const kmodel *m, const kentry *e, const kstep *st, const kkernel *k, kkernel *view,
                            int *tiled);

#endif
