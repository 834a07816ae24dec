// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: caches the transposed weight in a table keyed by the w pointer, as a layer
// might cache a prepared weight. When the caller writes new weights into the same buffer,
// it keeps using the stale transpose.
// Caught by: new inputs in the same buffers: the third seed reuses the first seed's
// buffers with new values (the second seed has buffers of its own, so a cache keyed by
// pointer is right there).
// CHECK: linear_relu failed mismatch: 'out' {{.*}}seed 2, new inputs in the buffers of seed 0
#include <cuda_runtime.h>

__global__ void transpose(const float* w, float* wt, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
  if (n < N) wt[(size_t)k * N + n] = w[(size_t)n * K + k];
}

// y = x * wt, reading wt along n: coalesced
__global__ void matmul_t(const float* x, const float* wt, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * wt[(size_t)k * N + n];
  y[b * N + n] = acc;
}

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

struct cached { const float* w; int N, K; float* wt; };
static cached cache[16];
static int ncached;

static const float* transposed(const float* w, int N, int K, cudaStream_t stream) {
  for (int i = 0; i < ncached; ++i)
    if (cache[i].w == w && cache[i].N == N && cache[i].K == K) return cache[i].wt;
  cached& c = cache[ncached++ % 16];
  c.w = w, c.N = N, c.K = K;
  cudaMalloc(&c.wt, sizeof(float) * N * K);
  transpose<<<dim3((N + 255) / 256, K), 256, 0, stream>>>(w, c.wt, N, K);
  return c.wt;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  const float* wt = transposed(w, N, K, stream);
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul_t<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, wt, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
