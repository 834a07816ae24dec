// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner %t
// RUN: awk -F'\t' '$1 == "v1" { print $4, $14, ($11 <= $10), ($10 <= $12) }' %t/results.tsv | FileCheck %s
//
// Timing: the reference against itself. The copy is verified and re-timed interleaved,
// and must not be called faster: its speedup's interval holds 1 (a false "faster" here
// would be one lucky run in twenty at the 95% level; the interval is what keeps it rare).
// CHECK: slower tune 1 1
// CHECK: ok check
// linear_relu: the contract's example (spec/input-format.md), the reference of the planted
// variants test/runner/planted/linear-relu-*.cu. A naive matmul (one thread per output,
// uncoalesced reads of w) into scratch from the stream's pool, then bias and ReLU.
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

// kfuse: in  x    float[B][K]
// kfuse: in  w    float[N][K]
// kfuse: in  bias float[N]
// kfuse: out out  float[B][N]
// kfuse: tune  B=256 K=1024 N=1024
// kfuse: check B=3 K=77 N=129
extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
