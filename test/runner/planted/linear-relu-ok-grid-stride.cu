// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: both kernels in grid-stride loops over a small fixed grid (any shape is covered
// whatever the grid), the scratch from cudaMalloc instead of the stream's pool.
// Caught by: nothing: it must be accepted. (cudaMalloc cannot be captured into a graph,
// but the reference is capturable, so the graph check applies; this variant frees with
// cudaFreeAsync and allocates once, outside any capture.)
// CHECK: linear_relu ok
// CHECK-NOT: failed
#include <cuda_runtime.h>

__global__ void matmul_gs(const float* x, const float* w, float* y, int B, int K, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < B * N; i += gridDim.x * blockDim.x) {
    int b = i / N, n = i % N;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
    y[i] = acc;
  }
}

__global__ void bias_relu_gs(const float* y, const float* bias, float* out, int B, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < B * N; i += gridDim.x * blockDim.x) {
    float v = y[i] + bias[i % N];
    out[i] = v > 0.f ? v : 0.f;
  }
}

static float* scratch;
static size_t scratch_bytes;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  size_t bytes = sizeof(float) * B * N;
  if (scratch_bytes < bytes) {  // grows on the first call of a larger shape, never in a capture
    cudaStreamSynchronize(stream);
    cudaFree(scratch);
    cudaMalloc(&scratch, bytes);
    scratch_bytes = bytes;
  }
  matmul_gs<<<264, 128, 0, stream>>>(x, w, scratch, B, K, N);
  bias_relu_gs<<<80, 256, 0, stream>>>(scratch, bias, out, B, N);
}
