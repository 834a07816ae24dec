// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/lookup %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: root through 16-byte loads in a grid-stride loop with a scalar tail; gather
// with one warp a row and the index read once per warp. Right at every value of the
// declared intervals, endpoints included.
// Caught by: nothing: both entries must be accepted, stress inputs included.
// CHECK-DAG: root ok
// CHECK-DAG: gather ok
// CHECK-NOT: failed
#include <cuda_runtime.h>
#include <math.h>

__global__ void root_vec4(const float* x, float* y, int N) {
  int n4 = N / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = x4[i];
    y4[i] = make_float4(sqrtf(v.x), sqrtf(v.y), sqrtf(v.z), sqrtf(v.w));
  }
  int t = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
  if (t < N) y[t] = sqrtf(x[t]);
}

__global__ void gather_warp(const float* table, const int* idx, float* out, int N, int D) {
  int n = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (n >= N) return;
  const float* src = table + (size_t)__shfl_sync(0xffffffffu, idx[n], 0) * D;
  for (int d = lane; d < D; d += 32) out[(size_t)n * D + d] = src[d];
}

extern "C" void root(const float* x, float* y, int N, cudaStream_t stream) {
  int blocks = (N / 4 + 255) / 256;
  root_vec4<<<blocks < 1 ? 1 : blocks > 1024 ? 1024 : blocks, 256, 0, stream>>>(x, y, N);
}

extern "C" void gather(const float* table, const int* idx, float* out, int N, int C, int D,
                       cudaStream_t stream) {
  gather_warp<<<(N + 7) / 8, 256, 0, stream>>>(table, idx, out, N, D);
}
