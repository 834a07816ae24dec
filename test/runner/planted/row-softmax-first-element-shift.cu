// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: softmax shifted by the row's first element instead of its maximum, to save the
// max pass: exp(x - x[0]) / sum exp(x - x[0]) is the same function, and on typical draws
// the same numbers, but x - x[0] exceeds 88 (exp overflows) as soon as a row's values
// spread over a hundred or so.
// Caught by: the stress inputs: normal inputs scaled.
// CHECK-DAG: row_softmax failed mismatch: 'y' element {{[0-9]+}} is nan, reference {{.*}}stress: normal inputs x{{10|100}}
// CHECK-DAG: row_sum ok
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_first(const float* x, float* y, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * C;
  float m = xr[0];
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(xr[c] - m);
  for (int c = 0; c < C; ++c) y[(size_t)r * C + c] = expf(xr[c] - m) / s;
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_first<<<(R + 127) / 128, 128>>>(x, y, R, C);
}

__global__ void sum_rows(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += x[(size_t)r * C + c];
  s[r] = acc;
}

extern "C" void row_sum(const float* x, float* s, int R, int C) {
  sum_rows<<<(R + 127) / 128, 128>>>(x, s, R, C);
}
