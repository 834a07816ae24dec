// A launch that reads another element of what the launch before it wrote (a neighbour,
// y[i + 1]) cannot join it: the other element belongs to another thread. Each launch is
// still emitted on its own; -R says why they were not fused.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-shifted-read.cu:27:3: remark: not fused: 'diff' reads 'tmp' at another index than its element, and the run writes it [-Rpass-missed=fuse-pointwise]
// CHECK: square_pointwise<<<
// CHECK-NEXT: diff_pointwise<<<
#include <cuda_runtime.h>

__global__ void square(const float* x, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] * x[i];
}

__global__ void diff(const float* t, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = t[i + 1 < n ? i + 1 : i] - t[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: out tmp float[n]
// kfuse: tune n=4096
extern "C" void square_diff(const float* x, float* y, float* tmp, int n, cudaStream_t stream) {
  square<<<(n + 255) / 256, 256, 0, stream>>>(x, tmp, n);
  diff<<<(n + 255) / 256, 256, 0, stream>>>(tmp, y, n);
}
