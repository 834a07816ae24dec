// Launches over different element counts do not fuse: the second covers half of the
// buffer (its element count is n / 2, not n).
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// REMARK: no-fuse-different-sizes.cu:23:3: remark: not fused: 'scale' covers another element count than the launches before it [-Rpass-missed=fuse-pointwise]
#include <cuda_runtime.h>

__global__ void offset(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.f;
}

__global__ void scale(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 2.f;
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
// kfuse: assume n % 2 == 0
extern "C" void offset_scale(const float* x, float* y, int n, cudaStream_t stream) {
  offset<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
  scale<<<(n / 2 + 255) / 256, 256, 0, stream>>>(y, n / 2);
}
