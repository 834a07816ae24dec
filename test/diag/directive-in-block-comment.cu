// Directive-looking lines inside a /* */ comment are commented out, not unattached
// directives.
// RUN: rm -f %t.out
// RUN: %kfuse %s --passes= -o %t.out 2>&1 | FileCheck %s --allow-empty --implicit-check-not=error:
// RUN: cmp %s %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

/* An example, for the reader:
// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
*/
