// A directive above a kernel (not an extern "C" host function) is attached to nothing.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

// kfuse: tune N=7 alpha=1
// CHECK: {{.*}}directive-not-attached.cu:[[@LINE-1]]:11: error: kfuse directive is not attached to an entry: directives go in the comment lines directly above an extern "C" function definition
__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
