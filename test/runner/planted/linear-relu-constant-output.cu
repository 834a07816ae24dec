// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: computes the result on the first call for a shape and replays that result on
// every later call of the same shape, whatever the inputs.
// Caught by: outputs that move when inputs move: on the second seed the reference's output
// changes and this one does not. (The first call is right, and the repeated call on the
// same inputs is too.)
// CHECK: linear_relu failed constant output: 'out' did not change when the inputs changed
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

static float* saved = nullptr;
static int saved_b = -1, saved_k = -1, saved_n = -1;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  size_t bytes = sizeof(float) * B * N;
  if (saved && saved_b == B && saved_k == K && saved_n == N) {
    cudaMemcpyAsync(out, saved, bytes, cudaMemcpyDeviceToDevice, stream);
    return;
  }
  float* y;
  cudaMallocAsync(&y, bytes, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
  cudaStreamSynchronize(stream);
  if (saved) cudaFree(saved);
  cudaMalloc(&saved, bytes);
  cudaMemcpy(saved, out, bytes, cudaMemcpyDeviceToDevice);
  saved_b = B, saved_k = K, saved_n = N;
}
