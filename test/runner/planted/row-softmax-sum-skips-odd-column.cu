// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: row_sum adds columns in pairs and drops the last column when C is odd; both of
// row_sum's bindings have an even C (1024 and 1000).
// Caught by: the shapes drawn within the assumes, which have odd C.
// CHECK-DAG: row_softmax ok
// CHECK-DAG: row_sum failed mismatch: 's' {{.*}}[drawn
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(const float* x, float* y, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * C;
  float* yr = y + (size_t)r * C;
  float m = -INFINITY;
  for (int c = 0; c < C; ++c) m = fmaxf(m, xr[c]);
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(xr[c] - m);
  for (int c = 0; c < C; ++c) yr[c] = expf(xr[c] - m) / s;
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_rows<<<(R + 127) / 128, 128>>>(x, y, R, C);
}

__global__ void sum_rows_pairs(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * C;
  float acc = 0.f;
  for (int c = 0; c + 1 < C; c += 2) acc += xr[c] + xr[c + 1];
  s[r] = acc;
}

extern "C" void row_sum(const float* x, float* s, int R, int C) {
  sum_rows_pairs<<<(R + 127) / 128, 128>>>(x, s, R, C);
}
