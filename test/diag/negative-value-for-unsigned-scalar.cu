// An unsigned parameter bound to a negative value is an error at the value, not a value
// that C would quietly convert (nor only "extent 1 of 'x' ('N') is negative" at each buffer).
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=-4 alpha=2.0
// CHECK: {{.*}}negative-value-for-unsigned-scalar.cu:[[@LINE-1]]:18: error: 'N' has type 'unsigned int', which cannot hold -4
extern "C" void scale(const float* x, float* y, unsigned N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
