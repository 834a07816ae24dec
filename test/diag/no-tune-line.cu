// An entry with no tune line is an error at its first directive.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// CHECK: {{.*}}no-tune-line.cu:[[@LINE-1]]:11: error: entry 'scale' has no tune line; kfuse needs at least one binding to optimize for
// kfuse: out y float[N]
// kfuse: check N=7 alpha=1
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
