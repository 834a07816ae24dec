// Extents are evaluated on 64-bit integers and overflow is an error, not a wrap, reported
// at the operator that overflows.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N*N*N*N*N*N*N]
// CHECK: {{.*}}extent-overflow.cu:[[@LINE-1]]:34: error: extent 1 of 'y' on the tune binding at line [[@LINE+1]]: integer overflow in '*'
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
