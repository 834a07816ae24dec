/*
 * gpu_checks.h: the verifier's own work on the GPU (gpu_checks.cu, compiled by nvcc into
 * kfuse-runner): filling input buffers by elemcore.h's generator, and reducing buffers to
 * the facts the checks need (the tolerance rule's statistics, run-to-run differences,
 * poison left behind, inputs changed, fingerprints), so that no buffer of any size is
 * copied to the host. Every element follows elemcore.h's definitions, so the verdicts are
 * those of the host code that selftest.c tests. Reductions combine per-block results on the
 * host in a fixed order: the same buffers give the same bits every time.
 *
 * Each function works on `stream`, waits for it, and returns a cudaError_t (0: success).
 */
#ifndef KFUSE_RUNNER_GPU_CHECKS_H
#define KFUSE_RUNNER_GPU_CHECKS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "elemcore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write d's values into the n elements at dev (without waiting). */
int gc_fill(void *dev, int64_t n, const ec_draw *d, cudaStream_t stream);
/* The first element at dev whose bytes are not d's value, in *first (-1: none). */
int gc_fill_check(const void *dev, int64_t n, const ec_draw *d, cudaStream_t stream,
                  int64_t *first);
/* The tolerance rule's statistics of out against ref (ec_cmp_add's meaning of exact and
 * finite_only). */
int gc_compare(const void *out, const void *ref, int64_t n, int type, int exact,
               int finite_only, cudaStream_t stream, ec_cmp *res);
/* How two runs differ (ec_spread). */
int gc_spread(const void *a, const void *b, int64_t n, int type, cudaStream_t stream,
              ec_spread *res);
/* The first element that is all `pa` bytes in a and all `pb` bytes in b (left alone by
 * two runs poisoned differently), in *first (-1: none). */
int gc_unwritten_both(const void *a, int pa, const void *b, int pb, int64_t n, int type,
                      cudaStream_t stream, int64_t *first);
/* The first element that is all `poison` bytes in out but not in ref (-1: none). */
int gc_unwritten(const void *out, int poison, const void *ref, int64_t n, int type,
                 cudaStream_t stream, int64_t *first);
/* The fingerprint of the n elements at dev (the sum of ec_hash_term over them). */
int gc_hash(const void *dev, int64_t n, int type, cudaStream_t stream, uint64_t *hash);

#ifdef __cplusplus
}
#endif

#endif
