// The directive prefix takes any blanks: `//kfuse:`, `//  kfuse :` and tabs all mark a
// directive, and blanks inside a directive are free. No error, and the model has them all.
// RUN: %kfuse %s --emit=model -o - | FileCheck %s

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

//kfuse:in x float[N]
//   kfuse  :  out   y   float [ N ]
//	kfuse:	tune	N=1024	alpha=2.0
// kfuse: check N = 7 alpha = -1.5e-3
// CHECK: param x: in float[N]
// CHECK: param y: out float[{{ *}}N{{ *}}]
// CHECK: tune N=1024 alpha=2
// CHECK: check N=7 alpha=-0.0015
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
