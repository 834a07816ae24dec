/*
 * gpu_selftest.c: runner-gpu-selftest, the tests of the verifier's GPU kernels
 * (gpu_checks.h) against the host code that defines them (elemcore.h, compare.h, draw.h),
 * which runner-selftest tests on machines without a GPU. For every element type: the
 * generator's values (bit for bit where the arithmetic is exact, to a float's precision
 * where it calls log and cos), the tolerance statistics, the run-to-run differences, the
 * poison searches and the fingerprints, on buffers with planted NaN, Inf, differences and
 * poison; and one buffer past 2^31 elements, so that 64-bit indexing is tested. Prints one
 * line per failed check and "N passed, N failed"; exits 1 when a check failed, 77 when
 * there is no GPU. test/runner/gpu-selftest.test runs it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "compare.h"
#include "draw.h"
#include "gpu_checks.h"


static cudaStream_t stream;

/* A copy to the device that is complete on return. A pageable cudaMemcpy returns once the
 * host buffer is staged, and the DMA may still be under way when a kernel on a non-blocking
 * stream (the tests' stream) reads the destination: a race, seen once with ten tests at once. */
static cudaError_t to_device(void *dst, const void *src, size_t bytes) {
  cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
  return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

static void *dev_copy(const void *host, size_t bytes) {
  void *d = NULL;
  if (cudaMalloc(&d, bytes) != cudaSuccess ||
      to_device(d, host, bytes) != cudaSuccess) {
    printf("cannot allocate %zu bytes on the GPU\n", bytes);
    exit(1);
  }
  return d;
}

static int same_cmp(const ec_cmp *a, const ec_cmp *b) {
  return a->maxd == b->maxd && a->at == b->at && a->maxref == b->maxref && a->bad == b->bad &&
         (a->bad < 0 || (a->bad_out == b->bad_out || (isnan(a->bad_out) && isnan(b->bad_out)))) &&
         fabs(a->sumd2 - b->sumd2) <= 1e-9 * (1 + a->sumd2) &&
         fabs(a->sumr2 - b->sumr2) <= 1e-9 * (1 + a->sumr2);
}

/* Change element i of buf (bool: flip it). */
static void bump(int type, void *buf, int64_t i) {
  double v = ec_get(type, buf, i);
  ec_set(type, buf, i, type == KB_BOOL ? !v : v + 3);
}

/* The generator on the GPU against the host, and every reduction, for one type. */
static void test_type(int type, int dist, double lo, double hi) {
  enum { N = 300007 };
  size_t k = ec_size(type), bytes = (size_t)N * k;
  unsigned char *host = malloc(bytes), *back = malloc(bytes), *other = malloc(bytes);
  void *dev;
  ec_draw d = {type, dist, lo, hi, 1, 0, 0, 42};

  draw_fill(host, N, &d);
  if (cudaMalloc(&dev, bytes) != cudaSuccess) {
    printf("cannot allocate on the GPU\n");
    exit(1);
  }
  CHECK(gc_fill(dev, N, &d, stream) == cudaSuccess && cudaStreamSynchronize(stream) == 0);
  cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost);
  if (dist == KB_DIST_NORMAL && ec_is_float(type)) {
    int close = 1; /* log and cos may differ in the last bits of a double */
    for (int64_t i = 0; i < N; i++)
      close &= fabs(ec_get(type, back, i) - ec_get(type, host, i)) <=
               1e-6 * (1 + fabs(ec_get(type, host, i))) + (type == KB_F16 || type == KB_BF16 ? 1e-2 : 0);
    CHECK(close);
  } else {
    CHECK(memcmp(back, host, bytes) == 0);
  }
  int64_t first = 0;
  CHECK(gc_fill_check(dev, N, &d, stream, &first) == 0 && first == -1);
  /* the device's own values, changed at two places: the first is found */
  memcpy(other, back, bytes);
  bump(type, other, 200001);
  bump(type, other, 123457);
  void *dother = dev_copy(other, bytes);
  CHECK(gc_fill_check(dother, N, &d, stream, &first) == 0 && first == 123457);

  /* the tolerance statistics, the spread and the fingerprint against the host's */
  if (ec_is_float(type)) {
    ec_set(type, other, 77, NAN);
    ec_set(type, back, 99, INFINITY);
    ec_set(type, other, 99, INFINITY);
    ec_set(type, back, 1000, NAN);
    to_device(dother, other, bytes);
    to_device(dev, back, bytes);
  }
  for (int finite_only = 0; finite_only < 2; finite_only++) {
    cmp_tol tol = cmp_tolerance(type, -1, -1);
    ec_cmp h = cmp_stats(type, other, back, N, tol, finite_only), g;
    CHECK(gc_compare(dother, dev, N, type, tol.exact, finite_only, stream, &g) == 0);
    CHECK(same_cmp(&h, &g));
  }
  ec_spread hs = cmp_spread(type, other, back, N), gs;
  CHECK(gc_spread(dother, dev, N, type, stream, &gs) == 0);
  CHECK(hs.ndiff == gs.ndiff && hs.first == gs.first && hs.maxd == gs.maxd && hs.maxa == gs.maxa);
  uint64_t h1 = 0, h2 = 0, h3 = 0;
  CHECK(gc_hash(dev, N, type, stream, &h1) == 0 && gc_hash(dev, N, type, stream, &h2) == 0);
  CHECK(gc_hash(dother, N, type, stream, &h3) == 0);
  CHECK(h1 == h2 && h1 != h3);

  /* poison: all 0xff in one run and all 0x7f in the other */
  memset(other + 5 * k, 0xff, k);
  memset(back + 5 * k, 0x7f, k);
  memset(other + 9 * k, 0xff, k);
  to_device(dother, other, bytes);
  to_device(dev, back, bytes);
  CHECK(gc_unwritten_both(dother, 0xff, dev, 0x7f, N, type, stream, &first) == 0 &&
        first == cmp_unwritten_both(type, other, 0xff, back, 0x7f, N) && first == 5);
  CHECK(gc_unwritten(dother, 0xff, dev, N, type, stream, &first) == 0 &&
        first == cmp_unwritten(type, other, 0xff, back, N) && first == 5);
  memset(other + 5 * k, 0x11, k);
  to_device(dother, other, bytes);
  CHECK(gc_unwritten(dother, 0xff, dev, N, type, stream, &first) == 0 &&
        first == cmp_unwritten(type, other, 0xff, back, N) && first == 9);
  cudaFree(dev);
  cudaFree(dother);
  free(host);
  free(back);
  free(other);
}

/* A buffer of more than 2^31 elements: 64-bit indexing in the fill and the searches. */
static void test_large(void) {
  int64_t n = ((int64_t)1 << 31) + 4097;
  ec_draw d = {KB_U8, KB_DIST_INT, 0, 200, 1, 0, 0, 7};
  unsigned char *dev, byte;
  int64_t first = 0;
  if (cudaMalloc((void **)&dev, (size_t)n) != cudaSuccess) {
    printf("skipped the buffer past 2^31 elements: not enough GPU memory\n");
    return;
  }
  CHECK(gc_fill(dev, n, &d, stream) == 0 && cudaStreamSynchronize(stream) == 0);
  CHECK(gc_fill_check(dev, n, &d, stream, &first) == 0 && first == -1);
  cudaMemcpy(&byte, dev + n - 3, 1, cudaMemcpyDeviceToHost);
  CHECK(byte == (unsigned char)ec_draw_value(&d, n - 3));
  byte = (unsigned char)(byte + 1);
  to_device(dev + n - 3, &byte, 1);
  CHECK(gc_fill_check(dev, n, &d, stream, &first) == 0 && first == n - 3);
  uint64_t h;
  CHECK(gc_hash(dev, n, KB_U8, stream, &h) == 0);
  cudaFree(dev);
}

int main(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("no GPU\n");
    return 77;
  }
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  test_type(KB_F32, KB_DIST_NORMAL, 0, 0);
  test_type(KB_F32, KB_DIST_UNIFORM, -1, 1);
  test_type(KB_F64, KB_DIST_NORMAL, 0, 0);
  test_type(KB_F16, KB_DIST_NORMAL, 0, 0);
  test_type(KB_BF16, KB_DIST_UNIFORM, 0, 1);
  test_type(KB_I8, KB_DIST_INT, -100, 100);
  test_type(KB_U8, KB_DIST_INT, 0, 100);
  test_type(KB_I32, KB_DIST_INT, -1000, 1000);
  test_type(KB_I64, KB_DIST_INT, -5, 5);
  test_type(KB_BOOL, KB_DIST_INT, 0, 2);
  test_large();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
