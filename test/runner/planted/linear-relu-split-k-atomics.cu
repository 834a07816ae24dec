// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a split-K matmul: four blocks share each output's K range and add their
// partial dot products into y with atomicAdd. Every result is within tolerance, but the
// order of the four additions, and so the last bits, change from run to run, while the
// reference gives the same bits every time.
// Caught by: repeated runs on the same inputs (bit for bit where the reference is).
// CHECK: linear_relu failed not deterministic: 'out' differs between two runs on the same inputs {{.*}}the reference's reruns are bit-for-bit equal throughout
#include <cuda_runtime.h>

enum { SPLIT = 4 };

__global__ void matmul_split(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y, part = blockIdx.z;
  if (n >= N) return;
  int k0 = K * part / SPLIT, k1 = K * (part + 1) / SPLIT;
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
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  cudaMemsetAsync(y, 0, sizeof(float) * B * N, stream);
  matmul_split<<<dim3((N + 255) / 256, B, SPLIT), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
