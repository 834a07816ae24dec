// An extent that evaluates negative on a binding is an error at the buffer's directive,
// naming the binding's line.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N-2000]
// CHECK: {{.*}}extent-negative.cu:[[@LINE-1]]:15: error: extent 1 of 'x' ('N-2000') is negative on the tune binding at line [[@LINE+2]]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
