// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: remembers its last result by the pointers it was called with (x, w, bias,
// out) and, called again with the same ones, copies the remembered output instead of
// computing: right when a caller repeats a call, wrong when it writes new inputs into the
// same buffers and calls again.
// Caught by: a call with new inputs in the same buffers as the call before (the output
// then repeats the call before's: a constant output).
// CHECK: linear_relu failed {{constant output|mismatch}}: 'out' {{.*}}new inputs in the same buffers as the call before
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

static struct {
  const float *x, *w, *bias;
  float* out;
  int B, K, N;
  float* saved;
} memo;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  size_t bytes = sizeof(float) * B * N;
  if (memo.saved && memo.x == x && memo.w == w && memo.bias == bias && memo.out == out &&
      memo.B == B && memo.K == K && memo.N == N) {
    cudaMemcpyAsync(out, memo.saved, bytes, cudaMemcpyDeviceToDevice, stream);
    return;
  }
  float* y;
  cudaMallocAsync(&y, bytes, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
  if (memo.saved) cudaFreeAsync(memo.saved, stream);
  cudaMallocAsync(&memo.saved, bytes, stream);
  cudaMemcpyAsync(memo.saved, out, bytes, cudaMemcpyDeviceToDevice, stream);
  memo.x = x, memo.w = w, memo.bias = bias, memo.out = out;
  memo.B = B, memo.K = K, memo.N = N;
}
