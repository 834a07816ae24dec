// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time --sanitize %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a tiled shared-memory matmul without the __syncthreads() between using a tile
// and loading the next one, so fast warps overwrite tiles that slow warps still read.
// Caught by: compute-sanitizer racecheck (--sanitize), or the tolerance rule or the
// repeated-run check when the race shows in a plain run.
// CHECK: linear_relu failed {{racecheck|mismatch|not deterministic}}
#include <cuda_runtime.h>

#define T 32
__global__ void matmul_tiled(const float* x, const float* w, float* y, int B, int K, int N) {
  __shared__ float xs[T][T + 1], ws[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int b = blockIdx.y * T + ty, n = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    int bl = blockIdx.y * T + ty, kl = k0 + tx, nl = blockIdx.x * T + ty;
    xs[ty][tx] = bl < B && kl < K ? x[bl * K + kl] : 0.f;
    ws[ty][tx] = nl < N && kl < K ? w[nl * K + kl] : 0.f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += xs[ty][k] * ws[tx][k];
    // missing: __syncthreads();
  }
  if (b < B && n < N) y[b * N + n] = acc;
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
  matmul_tiled<<<dim3((N + T - 1) / T, (B + T - 1) / T), dim3(T, T), 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
