// Annotations name every parameter, so an entry parameter without a name is an error at
// the entry's name.
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
// CHECK: {{.*}}unnamed-parameter.cu:[[@LINE+1]]:17: error: parameter 5 of entry 'scale' has no name; annotations name every parameter
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t) {
  scale_kernel<<<(N + 255) / 256, 256>>>(x, y, N, alpha);
}
