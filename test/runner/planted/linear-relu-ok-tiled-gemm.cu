// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time --sanitize %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: a tiled shared-memory GEMM with the bias and ReLU fused into its epilogue:
// another launch shape, another summation order (tile by tile), no scratch.
// Caught by: nothing: it must be accepted, by compute-sanitizer too (its barriers are all
// there).
// CHECK: linear_relu ok {{.*}}memcheck clean; racecheck clean
// CHECK-NOT: failed
#include <cuda_runtime.h>

#define T 32
// y = relu(x w^T + bias) in one kernel: 32x32 tiles of x and w in shared memory, the bias
// and ReLU applied as the tile's result is stored (no scratch buffer).
__global__ void linear_relu_tiled(const float* x, const float* w, const float* bias, float* out,
                                  int B, int K, int N) {
  __shared__ float xs[T][T + 1], ws[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int b = blockIdx.y * T + ty, n = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    int kl = k0 + tx, nl = blockIdx.x * T + ty;
    xs[ty][tx] = b < B && kl < K ? x[b * K + kl] : 0.f;
    ws[ty][tx] = nl < N && kl < K ? w[nl * K + kl] : 0.f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += xs[ty][k] * ws[tx][k];
    __syncthreads();
  }
  if (b < B && n < N) {
    float v = acc + bias[n];
    out[b * N + n] = v > 0.f ? v : 0.f;
  }
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  linear_relu_tiled<<<dim3((N + T - 1) / T, (B + T - 1) / T), dim3(T, T), 0, stream>>>(
      x, w, bias, out, B, K, N);
}
