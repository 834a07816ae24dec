// clang's warnings pass through in clang's format, and a warning alone does not stop kfuse:
// it exits 0 and writes the output.
// RUN: rm -f %t.out
// RUN: %kfuse %s --passes= -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: cmp %s %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

static int unused_helper(int v) {
  if (v > 0)
    return v;
}
// CHECK: {{.*}}clang-warning-passes-through.cu:[[@LINE-1]]:1: warning: non-void function does not return a value in all control paths [-Wreturn-type]

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
