// Functor fields written as macros (SHIFT, defined here; FLT_MAX, by a header) cannot name
// the fused kernel's parameters: they get s0 and s1, and the launch passes the macros. The
// output compiles with nvcc.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: fused_map_Shift_map_Clamp(const float* __restrict__ x, float* __restrict__ y, float s0, float s1, int n) {
// CHECK-LABEL: {{^}}extern "C" void two(
// CHECK: fused_map_Shift_map_Clamp<<<{{.*}}>>>(x, y, SHIFT, FLT_MAX, n);
#include <cuda_runtime.h>
#include <cfloat>
#define SHIFT 0.25f
struct Shift { float s; __device__ float operator()(float v) const { return v + s; } };
struct Clamp { float hi; __device__ float operator()(float v) const { return fminf(v, hi); } };
template <class F> __global__ void map(const float* x, float* y, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = f(x[i]);
}
// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
extern "C" void two(const float* x, float* y, int n, cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, n * sizeof(float), stream);
  map<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n, Shift{SHIFT});
  map<<<(n + 255) / 256, 256, 0, stream>>>(t, y, n, Clamp{FLT_MAX});
  cudaFreeAsync(t, stream);
}
