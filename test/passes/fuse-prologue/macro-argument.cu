// A scalar argument written as a macro (EPS) or as an expression cannot name the fused
// kernel's parameter (`float 1e-5f` does not compile): those get s0, s1...; one that names
// a variable (scale) keeps its name. The output compiles with nvcc.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: __device__ __forceinline__ float fused_add_eps_mul_scale_rsqrt_rows_q(const float* __restrict__ ms, float s0, float scale, float s2, long long kf_i) {
// CHECK: float e_v = ms[{{i[_0-9]*}}] + s0;
// CHECK: float q_v = e_v * scale + s2;
// CHECK: __global__ void fused_add_eps_mul_scale_rsqrt_rows(const float *x, float *y, int D, const float* __restrict__ ms, float s0, float scale, float s2) {
// CHECK-LABEL: {{^}}extern "C" void rms_rows(
// CHECK: fused_add_eps_mul_scale_rsqrt_rows<<<R, 256, 0, stream>>>(x, y, D, ms, EPS, scale, 0.5f * scale);
#include <cuda_runtime.h>

#define EPS 1e-5f

__global__ void row_mean_sq(const float* x, float* ms, int D) {
  float s = 0.f;
  for (int j = 0; j < D; ++j) s += x[blockIdx.x * D + j] * x[blockIdx.x * D + j];
  ms[blockIdx.x] = s / D;
}

__global__ void add_eps(const float* ms, float* e, float eps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] = ms[i] + eps;
}

__global__ void mul_scale(const float* e, float* q, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = e[i] * a + b;
}

__global__ void rsqrt_rows(const float* x, const float* q, float* y, int D) {
  for (int j = threadIdx.x; j < D; j += blockDim.x)
    y[blockIdx.x * D + j] = x[blockIdx.x * D + j] * rsqrtf(q[blockIdx.x]);
}

// kfuse: in  x float[R][D]
// kfuse: out y float[R][D]
// kfuse: tune R=256 D=1024 scale=1.5
extern "C" void rms_rows(const float* x, float scale, float* y, int R, int D, cudaStream_t stream) {
  float *ms, *e, *q;
  cudaMallocAsync(&ms, R * sizeof(float), stream);
  cudaMallocAsync(&e, R * sizeof(float), stream);
  cudaMallocAsync(&q, R * sizeof(float), stream);
  row_mean_sq<<<R, 1, 0, stream>>>(x, ms, D);
  add_eps<<<(R + 255) / 256, 256, 0, stream>>>(ms, e, EPS, R);
  mul_scale<<<(R + 255) / 256, 256, 0, stream>>>(e, q, scale, 0.5f * scale, R);
  rsqrt_rows<<<R, 256, 0, stream>>>(x, q, y, D);
  cudaFreeAsync(ms, stream);
  cudaFreeAsync(e, stream);
  cudaFreeAsync(q, stream);
}
