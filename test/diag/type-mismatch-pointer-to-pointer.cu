// A pointer to pointers is no buffer of floats: annotating `const float**` as float is a
// type mismatch, and the parameter itself is of no kind an entry takes.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// CHECK-DAG: {{.*}}type-mismatch-pointer-to-pointer.cu:[[@LINE-1]]:17: error: 'x' is declared 'const float **' but annotated float
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
// CHECK-DAG: {{.*}}type-mismatch-pointer-to-pointer.cu:[[@LINE+1]]:37: error: parameter 'x' of entry 'scale' has type 'const float **'
extern "C" void scale(const float** x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x[0], y, N, alpha);
}
