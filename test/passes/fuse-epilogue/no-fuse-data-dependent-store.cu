// A store under a condition on loaded data (here: which of two values a row keeps depends
// on its mask) is not a shape-only guard; the producer is left alone.
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-data-dependent-store.cu:[[@LINE+27]]:3: remark: not fused: 'masked_rowsum' is no producer for an epilogue: its store to its output sits under a condition on loaded data [-Rpass-missed=fuse-epilogue]
// CHECK-NOT: fused{{_}}masked_rowsum
// CHECK: masked_rowsum<<<
#include <cuda_runtime.h>

__global__ void masked_rowsum(const float* x, const int* mask, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += x[r * C + c];
  if (mask[r]) s[r] = acc;
  else s[r] = -acc;
}

__global__ void square(const float* s, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s[i] * s[i];
}

// kfuse: in  x float[R][C]
// kfuse: in  mask int32[R]
// kfuse: init mask int(0,2)
// kfuse: out y float[R]
// kfuse: tune R=4096 C=256
extern "C" void masked(const float* x, const int* mask, float* y, int R, int C, cudaStream_t stream) {
  float* s;
  cudaMallocAsync(&s, R * sizeof(float), stream);
  masked_rowsum<<<(R + 127) / 128, 128, 0, stream>>>(x, mask, s, R, C);
  square<<<(R + 255) / 256, 256, 0, stream>>>(s, y, R);
  cudaFreeAsync(s, stream);
}
