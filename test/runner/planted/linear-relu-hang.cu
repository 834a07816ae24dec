// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time --timeout 20 %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a kernel that waits for a flag nobody sets (a broken inter-block handshake): it
// never finishes.
// Caught by: the time limit of the worker (--timeout): it is killed and the variant is
// recorded as timed out; the run goes on.
// CHECK: linear_relu failed timeout: no verdict after
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void bias_relu_handshake(const float* y, const float* bias, float* out, int B, int N,
                                    volatile int* ready) {
  while (*ready == 0) {  // the producer block that would set it was never launched
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  static int* ready;
  if (!ready) cudaMalloc(&ready, sizeof(int));
  cudaMemsetAsync(ready, 0, sizeof(int), stream);
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu_handshake<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N, ready);
  cudaFreeAsync(y, stream);
}
