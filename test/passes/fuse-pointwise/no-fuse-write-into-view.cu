// A launch of the run writes through a pointer into a buffer (`out + n`): views join only
// when read, so the run stops there, and -R says why.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: not fused: argument 'out + n' of 'scale' points into a buffer and the kernel writes through it [-Rpass-missed=fuse-pointwise]
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * s;
}

// kfuse: in  x float[n]
// kfuse: out out float[2 * n]
// kfuse: tune n=1024
extern "C" void twice(const float* x, float* out, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, out, 2.0f, n);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, out + n, 3.0f, n);
}
