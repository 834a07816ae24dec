// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: keeps the product y = x w^T in a scratch buffer of its own and skips the
// matmul when x and w are the buffers of the call before ("the weights and activations did
// not move"), so that only bias and ReLU run again: wrong as soon as new values are
// written into the same buffers.
// Caught by: a call with new inputs in the same buffers as the call before.
// CHECK: linear_relu failed mismatch: 'out' {{.*}}new inputs in the same buffers as the call before
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

static const float *last_x, *last_w;
static int last_B, last_K, last_N;
static float* y;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  if (x != last_x || w != last_w || B != last_B || K != last_K || N != last_N) {
    if (y) cudaFreeAsync(y, stream);
    cudaMallocAsync(&y, sizeof(float) * B * N, stream);
    matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
    last_x = x, last_w = w, last_B = B, last_K = K, last_N = N;
  }
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
}
