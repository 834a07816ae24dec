// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: the matmul keeps four partial sums (k mod 4) and adds them at the end, a
// reordering of the float sum that moves every element by a little; other launch shapes
// (128 threads, batch rows along x).
// Caught by: nothing: the tolerance rule's scale is the buffer's, so the reordering is
// accepted.
// CHECK: linear_relu ok
// CHECK-NOT: failed
#include <cuda_runtime.h>

__global__ void matmul4(const float* x, const float* w, float* y, int B, int K, int N) {
  int b = blockIdx.x, n = blockIdx.y * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int k = 0;
  for (; k + 4 <= K; k += 4)
    for (int j = 0; j < 4; ++j) acc[j] += x[b * K + k + j] * w[n * K + k + j];
  for (; k < K; ++k) acc[k % 4] += x[b * K + k] * w[n * K + k];
  y[b * N + n] = (acc[3] + acc[2]) + (acc[1] + acc[0]);
}

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  out[i] = fmaxf(y[i] + bias[i % N], 0.f);
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul4<<<dim3(B, (N + 127) / 128), 128, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 511) / 512, 512, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
