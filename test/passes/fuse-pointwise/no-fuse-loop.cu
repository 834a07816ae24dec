// A kernel with a loop over K is no pointwise launch: it stays as written and -R says why;
// the pointwise launch after it is still emitted on its own.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-loop.cu:29:3: remark: not fused: 'matmul' is not pointwise: it does not start from a linear thread index (blockIdx.x * blockDim.x + threadIdx.x) [-Rpass-missed=fuse-pointwise]
// CHECK: matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
// CHECK-NEXT: relu_pointwise<<<
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void relu(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.f);
}

// kfuse: in  x float[B][K]
// kfuse: in  w float[N][K]
// kfuse: out y float[B][N]
// kfuse: tune B=64 K=256 N=512
extern "C" void linear_relu(const float* x, const float* w, float* y, int B, int K, int N,
                            cudaStream_t stream) {
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, B * N);
}
