// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: the matmul through cuBLAS with a handle created on first use and bound to the
// stream of that first call, as if every caller used one stream: on a later call on
// another stream the matmul is queued on the old one, and bias and ReLU (on the caller's
// stream) read y before it is written.
// Caught by: a call on another stream than the first, with the old one kept busy: the
// outputs are wrong, or, when the late matmul writes into scratch the caller's stream has
// freed already, the device reports an illegal address.
// CHECK: linear_relu failed {{mismatch: 'out'|cuda error in work left running}}{{.*}}stream 2 of 2 (the other held busy)
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

static cublasHandle_t handle;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  if (!handle) {
    cublasCreate(&handle);
    cublasSetStream(handle, stream);
  }
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  const float one = 1.f, zero = 0.f;
  // row-major y[B][N] = x[B][K] w[N][K]^T is column-major y^T = w^T x
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, B, K, &one, w, K, x, K, &zero, y, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
