// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: matmul, bias and ReLU in one kernel whose grid has a fixed 256 rows of blocks,
// "enough for every batch" (the tune binding has B = 256, the check binding 3): rows past
// 256 are never computed.
// Caught by: a shape past the bindings: B beyond its largest binding, the other scalars
// small.
// CHECK: linear_relu failed unwritten: 'out' element {{.*}}[past B: B=513
#include <cuda_runtime.h>

__global__ void matmul_bias_relu(const float* x, const float* w, const float* bias, float* out,
                                 int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N || b >= B) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  float v = acc + bias[n];
  out[b * N + n] = v > 0.f ? v : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  matmul_bias_relu<<<dim3((N + 255) / 256, 256), 256, 0, stream>>>(x, w, bias, out, B, K, N);
}
