// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: softmax without the max subtraction, exp(x) / sum(exp(x)), one block a row. It
// is exact on typical normal draws (|x| < 6), and overflows to inf / inf = NaN once the
// values are tens or hundreds, which `normal` admits as well.
// Caught by: the stress inputs: normal inputs scaled, where the reference (with its max
// subtraction) is finite.
// CHECK-DAG: row_softmax failed mismatch: 'y' element {{[0-9]+}} is nan, reference {{.*}}stress: normal inputs x{{10|100}}
// CHECK-DAG: row_sum ok
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_no_max(const float* x, float* y, int R, int C) {
  __shared__ float part[128];
  int r = blockIdx.x;
  const float* xr = x + (size_t)r * C;
  float s = 0.f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) s += expf(xr[c]);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  float total = part[0];
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[(size_t)r * C + c] = expf(xr[c]) / total;
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_no_max<<<R, 128>>>(x, y, R, C);
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
