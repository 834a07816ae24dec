// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: deduplicates the weight matrix by content: when w holds the same values as a
// matrix seen before (same fingerprint), the matmul reads the buffer where they were first
// seen, which it takes to be the canonical copy. Right while that buffer is untouched;
// wrong once the caller has reused it for something else.
// Caught by: the same inputs again in other buffers, after the old ones were overwritten.
// CHECK: linear_relu failed mismatch: 'out' {{.*}}again, in other buffers (the old ones overwritten)
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

// A fingerprint of a buffer: its first 64 values (or fewer) folded into one word, read
// back to the host.
__global__ void fold(const float* p, int n, unsigned long long* out) {
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < n && i < 64; ++i) h = (h ^ __float_as_uint(p[i])) * 1099511628211ull;
  *out = h;
}

static unsigned long long fingerprint(const float* p, int n, cudaStream_t stream) {
  static unsigned long long* dev;
  unsigned long long h = 0;
  if (!dev) cudaMalloc(&dev, sizeof *dev);
  fold<<<1, 1, 0, stream>>>(p, n, dev);
  cudaMemcpyAsync(&h, dev, sizeof h, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  return h;
}

static unsigned long long seen_print;
static const float* seen_at;
static int seen_n, seen_k;

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  unsigned long long h = fingerprint(w, N * K, stream);
  if (!seen_at || h != seen_print || N != seen_n || K != seen_k) {
    seen_print = h;
    seen_at = w;
    seen_n = N;
    seen_k = K;
  }
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, seen_at, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
