// A memset on another stream than the run's (here the legacy default stream, through
// cudaMemset) does not join the run: it ends it.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-memset-other-stream.cu:26:3: remark: not fused: a memset on another stream than the run's [-Rpass-missed=fuse-pointwise]
// CHECK: negate_pointwise<<<
// CHECK-NEXT: cudaMemset(y, 0, n * sizeof(float));
#include <cuda_runtime.h>

__global__ void negate(const float* x, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = -x[i];
}

__global__ void keep_positive(const float* t, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && t[i] > 0.f) y[i] = t[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: out t float[n]
// kfuse: tune n=4096
extern "C" void neg_relu(const float* x, float* y, float* t, int n, cudaStream_t stream) {
  negate<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n);
  cudaMemset(y, 0, n * sizeof(float));
  keep_positive<<<(n + 255) / 256, 256, 0, stream>>>(t, y, n);
}
