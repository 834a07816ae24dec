// `deterministic` is a flag: anything after it is an error, at the first extra token.
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
// kfuse: tune N=1024 alpha=2.0
// kfuse: deterministic yes
// CHECK: {{.*}}deterministic-takes-no-arguments.cu:[[@LINE-1]]:25: error: 'deterministic' takes no arguments
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
