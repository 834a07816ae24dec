// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/col_sum %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
// RUN: %kfuse-runner --no-time --deterministic %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck --check-prefix=DET %s
//
// Correct: a deterministic two-pass reduction: each block sums a band of 64 rows of its
// columns into a scratch row of partial sums, and a second kernel adds the bands in order.
// The same bits on every run, although the reference's differ: accepted for both entries,
// with and without --deterministic.
// Caught by: nothing.
// CHECK-DAG: col_sum ok
// CHECK-DAG: col_sum_det ok
// CHECK-NOT: failed
// DET-DAG: col_sum ok
// DET-DAG: col_sum_det ok
// DET-NOT: failed
#include <cuda_runtime.h>

enum { BAND = 64 };

__global__ void band_sums(const float* x, float* part, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, band = blockIdx.y, r0 = band * BAND;
  if (c >= C) return;
  float acc = 0.f;
  for (int r = r0; r < R && r < r0 + BAND; ++r) acc += x[(size_t)r * C + c];
  part[(size_t)band * C + c] = acc;
}

__global__ void add_bands(const float* part, float* s, int bands, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float acc = 0.f;
  for (int b = 0; b < bands; ++b) acc += part[(size_t)b * C + c];
  s[c] = acc;
}

static void sums(const float* x, float* s, int R, int C, cudaStream_t stream) {
  int bands = (R + BAND - 1) / BAND;
  float* part;
  cudaMallocAsync(&part, sizeof(float) * (size_t)bands * C, stream);
  band_sums<<<dim3((C + 255) / 256, bands), 256, 0, stream>>>(x, part, R, C);
  add_bands<<<(C + 255) / 256, 256, 0, stream>>>(part, s, bands, C);
  cudaFreeAsync(part, stream);
}

extern "C" void col_sum(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}

extern "C" void col_sum_det(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}
