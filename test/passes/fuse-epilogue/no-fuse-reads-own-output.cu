// A producer that reads back what it stored (here a second pass over its own output) is
// left alone: the epilogue would change the values it reads. -R says why; fuse-pointwise
// still takes the run by itself.
// RUN: %kfuse %s --passes=fuse-epilogue,fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-reads-own-output.cu:[[@LINE+25]]:3: remark: not fused: 'normalize_rows' is no producer for an epilogue: it reads its own output [-Rpass-missed=fuse-epilogue]
// CHECK-NOT: fused{{_}}normalize_rows
// CHECK: normalize_rows<<<(R + 127) / 128, 128, 0, stream>>>(x, s, R, C);
// CHECK-NEXT: relu_pointwise<<<
#include <cuda_runtime.h>

__global__ void normalize_rows(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float sum = 0.f;
  for (int c = 0; c < C; ++c) { s[r * C + c] = expf(x[r * C + c]); sum += s[r * C + c]; }
  for (int c = 0; c < C; ++c) s[r * C + c] = s[r * C + c] / sum;
}

__global__ void relu(const float* s, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(s[i], 0.f);
}

// kfuse: in  x float[R][C]
// kfuse: out y float[R][C]
// kfuse: tune R=1024 C=256
extern "C" void softmax_relu(const float* x, float* y, int R, int C, cudaStream_t stream) {
  float* s;
  cudaMallocAsync(&s, (size_t)R * C * sizeof(float), stream);
  normalize_rows<<<(R + 127) / 128, 128, 0, stream>>>(x, s, R, C);
  relu<<<(R * C + 255) / 256, 256, 0, stream>>>(s, y, R * C);
  cudaFreeAsync(s, stream);
}
