// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/gelu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: the same tanh-form GELU, four elements a thread through 16-byte loads and
// stores in a grid-stride loop, with a scalar tail for N not a multiple of four (cudaMalloc
// buffers are 256-byte aligned).
// Caught by: nothing: it must be accepted, stress inputs included (tanhf saturates).
// CHECK: gelu ok
// CHECK-NOT: failed
#include <cuda_runtime.h>
#include <math.h>

__device__ __forceinline__ float gelu1(float v) {
  float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.f + tanhf(u));
}

__global__ void gelu_vec4(const float* x, float* y, int N) {
  int n4 = N / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = x4[i];
    y4[i] = make_float4(gelu1(v.x), gelu1(v.y), gelu1(v.z), gelu1(v.w));
  }
  int t = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
  if (t < N) y[t] = gelu1(x[t]);
}

extern "C" void gelu(const float* x, float* y, int N, cudaStream_t stream) {
  int blocks = (N / 4 + 255) / 256;
  gelu_vec4<<<blocks < 1 ? 1 : blocks > 1024 ? 1024 : blocks, 256, 0, stream>>>(x, y, N);
}
