// A directive that is not one of the nine is an error at its keyword.
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
// kfuse: tunes N=7 alpha=1
// CHECK: {{.*}}unknown-directive.cu:[[@LINE-1]]:11: error: unknown directive 'tunes'; expected in, out, inout, tune, check, assume, init, tol or deterministic
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
