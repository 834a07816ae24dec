// A producer that accumulates its output with atomics has no single store of an element's
// final value; it is left alone and the run is fused by itself.
// RUN: %kfuse %s --passes=fuse-epilogue,fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-atomic.cu:[[@LINE+23]]:3: remark: not fused: 'colsum' is no producer for an epilogue: it updates its output with an atomic [-Rpass-missed=fuse-epilogue]
// CHECK-NOT: fused{{_}}colsum
// CHECK: colsum<<<dim3((C + 255) / 256, R), 256, 0, stream>>>(x, s, R, C);
// CHECK-NEXT: sqrt_k_pointwise<<<
#include <cuda_runtime.h>

__global__ void colsum(const float* x, float* s, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < C) atomicAdd(&s[c], x[r * C + c] * x[r * C + c]);
}

__global__ void sqrt_k(const float* s, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(s[i]);
}

// kfuse: in  x float[R][C]
// kfuse: out y float[C]
// kfuse: tune R=256 C=4096
extern "C" void colnorm(const float* x, float* y, int R, int C, cudaStream_t stream) {
  float* s;
  cudaMallocAsync(&s, C * sizeof(float), stream);
  cudaMemsetAsync(s, 0, C * sizeof(float), stream);
  colsum<<<dim3((C + 255) / 256, R), 256, 0, stream>>>(x, s, R, C);
  sqrt_k<<<(C + 255) / 256, 256, 0, stream>>>(s, y, C);
  cudaFreeAsync(s, stream);
}
