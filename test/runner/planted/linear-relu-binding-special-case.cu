// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a column-blocked bias_relu whose leftover columns are handled only when one
// column is left over (N % 128 == 1), which is right for both bindings (N=1024 and N=129)
// and for no other N that leaves a remainder.
// Caught by: the shapes drawn within the assumes (here N=130 and N=2): nothing but a made-
// up shape can catch a variant tuned to its bindings.
// CHECK: linear_relu failed unwritten: 'out' element {{.*}}[drawn
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

// one block per row and 128-column chunk; the leftover columns after the last whole chunk
__global__ void bias_relu_chunks(const float* y, const float* bias, float* out, int B, int N) {
  int b = blockIdx.y, n = blockIdx.x * 128 + threadIdx.x;
  int whole = N / 128 * 128;
  if (n < whole || (N % 128 == 1 && n == whole)) {
    float v = y[b * N + n] + bias[n];
    out[b * N + n] = v > 0.f ? v : 0.f;
  }
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu_chunks<<<dim3((N + 127) / 128, B), 128, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
