// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: forks bias_relu onto a side stream (an event on the entry's stream, waited for
// by the side stream) and never joins it back. A long kernel it queues after the fork on
// the entry's stream happens to hide the race in plain runs.
// Caught by: the CUDA graph check: the reference can be captured into a graph on its
// stream, and this entry cannot (cudaStreamEndCapture reports the unjoined work).
// CHECK: linear_relu failed graph: cannot capture the entry into a CUDA graph: cudaErrorStreamCaptureUnjoined
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

__global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

static cudaStream_t side;
static cudaEvent_t forked;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
  }
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  cudaEventRecord(forked, stream);
  cudaStreamWaitEvent(side, forked, 0);
  bias_relu<<<(B * N + 255) / 256, 256, 0, side>>>(y, bias, out, B, N);
  spin<<<1, 1, 0, stream>>>(4000000);  // about 2 ms: the side stream is done by then
  cudaFreeAsync(y, stream);  // (also a use-after-free race with the side stream)
}
