// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: the matmul through cuBLAS (the bundle links -lcublas), as PyTorch makes it,
// with a handle created on first use; then bias and ReLU.
// Caught by: nothing: it must be accepted, graph check included (cuBLAS calls can be
// captured).
// CHECK: linear_relu ok
// CHECK-NOT: failed
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

static cublasHandle_t handle;
static cudaStream_t handle_stream;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  if (!handle) cublasCreate(&handle);
  if (handle_stream != stream || !handle_stream) {
    cublasSetStream(handle, stream);
    handle_stream = stream;
  }
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  const float one = 1.f, zero = 0.f;
  // row-major y[B][N] = x[B][K] w[N][K]^T is column-major y^T = w^T x
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, B, K, &one, w, K, x, K, &zero, y, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
