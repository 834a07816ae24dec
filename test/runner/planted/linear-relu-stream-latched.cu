// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: keeps the stream of its first call in a static "execution context" and queues
// all its work there ever after: right while every call comes on that stream; on another
// stream, the caller's stream completes at once and the outputs are read before the work
// (behind the other stream's queue) has written them.
// Caught by: a call on another stream than the first, with the old one kept busy.
// CHECK: linear_relu failed unwritten: 'out' element {{.*}}stream 2 of 2 (the other held busy)
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

static cudaStream_t context;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  if (!context) context = stream;
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, context);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, context>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, context>>>(y, bias, out, B, N);
  cudaFreeAsync(y, context);
}
