// An element type outside the contract's list is named, with the list, at the type.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float32[N]
// CHECK: {{.*}}unknown-type.cu:[[@LINE-1]]:17: error: unknown type 'float32'; expected float, double, half, bfloat16, int8, uint8, int32, int64 or bool
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
