// A scalar passed by reference is not an integer parameter, but it is not a floating one
// either: naming it in an extent must not say it is floating. The reference is an error at
// the parameter, once.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not='floating parameter'
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
// CHECK: {{.*}}reference-parameter-message.cu:[[@LINE+1]]:54: error: parameter 'N' of entry 'scale' has type 'int &'; entry parameters are device pointers to scalars, integer or floating scalars, or a cudaStream_t
extern "C" void scale(const float* x, float* y, int& N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
