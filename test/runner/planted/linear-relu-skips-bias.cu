// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a fused matmul and ReLU that forgets the bias.
// Caught by: the tolerance rule.
// CHECK: linear_relu failed mismatch: 'out'
#include <cuda_runtime.h>

__global__ void matmul_relu(const float* x, const float* w, float* out, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  out[b * N + n] = acc > 0.f ? acc : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  matmul_relu<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, out, B, K, N);
}
