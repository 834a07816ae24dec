// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/gelu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: tanh rewritten through one exponential, tanh(u) = (e^2u - 1) / (e^2u + 1), as
// a fast-math rewrite might: exact for |x| up to about 4, and inf / inf = NaN once
// 2u > 88, which x around 10 already reaches (u grows as x^3).
// Caught by: the stress inputs: normal inputs scaled.
// CHECK: gelu failed mismatch: 'y' element {{[0-9]+}} is nan, reference {{.*}}stress: normal inputs x10
#include <cuda_runtime.h>
#include <math.h>

__global__ void gelu_exp(const float* x, float* y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float v = x[i];
  float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  float e = __expf(2.f * u);
  y[i] = 0.5f * v * (1.f + (e - 1.f) / (e + 1.f));
}

extern "C" void gelu(const float* x, float* y, int N, cudaStream_t stream) {
  gelu_exp<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}
