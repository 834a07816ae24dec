// A kernel that updates its buffer in place reads the element from memory before it
// stores the new value, in the vector lanes and in the scalar loop (a load of the buffer
// is its value before the store, not the register the store declares).
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: relu_add_pointwise(float* __restrict__ y, const float* __restrict__ x, int n)
// CHECK: float y_v = fmaxf(y_4.x, 0.f) + x_4.x;
// CHECK: float y_v = fmaxf(y_4.w, 0.f) + x_4.w;
// CHECK: float y_v = fmaxf(y[i], 0.f) + x[i];
// CHECK-NEXT: y_v = y_v + x[i];
// CHECK-NEXT: y[i] = y_v;
#include <cuda_runtime.h>

__global__ void relu_add(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = fmaxf(y[i], 0.f) + x[i];
    y[i] += x[i];
  }
}

// kfuse: inout y float[n]
// kfuse: in    x float[n]
// kfuse: tune  n=1048576
extern "C" void relu_add_twice(float* y, const float* x, int n, cudaStream_t stream) {
  relu_add<<<(n + 255) / 256, 256, 0, stream>>>(y, x, n);
}
