// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a reduction reordered the wrong way: K is summed in four chunks whose partial
// sums are kept as bfloat16 before they are added, an error far beyond what a reordering
// of float sums makes.
// Caught by: the tolerance rule.
// CHECK: linear_relu failed mismatch: 'out'
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  int chunk = (K + 3) / 4;
  float total = 0.f;
  for (int c = 0; c < 4; ++c) {
    float part = 0.f;
    for (int k = c * chunk; k < K && k < (c + 1) * chunk; ++k) part += x[b * K + k] * w[n * K + k];
    total += __bfloat162float(__float2bfloat16(part));
  }
  y[b * N + n] = total;
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
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
