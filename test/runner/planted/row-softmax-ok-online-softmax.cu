// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: a one-pass ("online") softmax in a grid-stride loop over rows, keeping a
// running maximum and rescaling the running sum: a different algorithm whose results
// differ from the reference's in the last bits.
// Caught by: nothing: both entries must be accepted.
// CHECK-DAG: row_softmax ok
// CHECK-DAG: row_sum ok
// CHECK-NOT: failed
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_online(const float* x, float* y, int R, int C) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < R; r += gridDim.x * blockDim.x) {
    const float* xr = x + (size_t)r * C;
    float m = -INFINITY, s = 0.f;
    for (int c = 0; c < C; ++c) {
      float v = xr[c];
      if (v > m) {
        s = s * expf(m - v) + 1.f;
        m = v;
      } else {
        s += expf(v - m);
      }
    }
    for (int c = 0; c < C; ++c) y[(size_t)r * C + c] = expf(xr[c] - m) / s;
  }
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_online<<<40, 64>>>(x, y, R, C);
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
