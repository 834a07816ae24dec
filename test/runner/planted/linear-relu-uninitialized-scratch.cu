// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: splits K in two and accumulates both halves into scratch from cudaMallocAsync
// with atomicAdd, without clearing it first: it relies on fresh memory being zero.
// Caught by: dirty memory: before every call the runner fills and frees a block of the
// stream's pool (and of cudaMalloc), so scratch that is read before it is written holds
// garbage, and the result mismatches.
// CHECK: linear_relu failed mismatch: 'out'
#include <cuda_runtime.h>

__global__ void matmul_half(const float* x, const float* w, float* y, int B, int K, int N, int k0, int k1) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = k0; k < k1; ++k) acc += x[b * K + k] * w[n * K + k];
  atomicAdd(&y[b * N + n], acc);
}

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);  // never cleared
  matmul_half<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N, 0, K / 2);
  matmul_half<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N, K / 2, K);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
