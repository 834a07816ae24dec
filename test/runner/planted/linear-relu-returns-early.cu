// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: returns before its work is done, by a host-side early sync trick: it waits for
// the entry's stream on the host (cudaStreamSynchronize), then queues the last kernel on
// the legacy default stream, which a non-blocking caller stream does not wait for. (The
// kernel is slow to make the race certain.)
// Caught by: the caller's view: the runner synchronizes only the stream it passed, then
// reads the outputs, which still hold the poison. (The graph check would refuse it too: a
// stream cannot be synchronized during capture.)
// CHECK: linear_relu failed unwritten: 'out' element
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void slow_bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  long long t0 = clock64();
  while (clock64() - t0 < 20000000) {  // about 10 ms
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  static float* y;
  static size_t have;
  size_t bytes = sizeof(float) * B * N;
  if (have < bytes) {
    cudaFree(y);
    cudaMalloc(&y, bytes);
    have = bytes;
  }
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  cudaStreamSynchronize(stream);  // "the stream is done": the caller's sync returns at once
  slow_bias_relu<<<(B * N + 255) / 256, 256, 0, 0>>>(y, bias, out, B, N);
}
