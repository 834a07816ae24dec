// --print-after=fuse-pointwise prints the program after the pass on standard error; the
// output itself stays the input (nothing was verified or measured here).
// RUN: %kfuse %s --passes=fuse-pointwise --print-after=fuse-pointwise -o %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
// CHECK: // ---- after fuse-pointwise ----
// CHECK-NEXT: // kfuse variant fuse-pointwise(block=256,vec=4)@twice#0-#1
// CHECK: fused_add_one_times_two<<<
#include <cuda_runtime.h>

__global__ void add_one_kernel(const float* x, float* t, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    t[i] = x[i] + 1.f;
}

__global__ void times_two_kernel(float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.f * t[i];
}

// kfuse: in  x float[n]
// kfuse: out t float[n]
// kfuse: tune n=4096
extern "C" void twice(const float* x, float* t, int n, cudaStream_t stream) {
  add_one_kernel<<<64, 256, 0, stream>>>(x, t, n);
  times_two_kernel<<<(n + 255) / 256, 256, 0, stream>>>(t, n);
}
