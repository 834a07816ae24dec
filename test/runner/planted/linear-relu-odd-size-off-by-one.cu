// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: bias_relu handles two elements per thread and launches (B*N)/2 threads, so when
// B*N is odd the last element is never written.
// Caught by: the poison, at the odd shapes (the check binding, drawn shapes).
// CHECK: linear_relu failed unwritten: 'out' element
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void bias_relu_pairs(const float* y, const float* bias, float* out, int B, int N) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= B * N / 2) return;
  for (int i = 2 * p; i < 2 * p + 2; ++i) {
    float v = y[i] + bias[i % N];
    out[i] = v > 0.f ? v : 0.f;
  }
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  int pairs = B * N / 2;
  if (pairs > 0) bias_relu_pairs<<<(pairs + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
