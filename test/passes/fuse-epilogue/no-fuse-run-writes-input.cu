// A run that writes a buffer the producer reads (here the producer's input, updated in
// place after it) would race with the producer's other threads still reading it.
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-run-writes-input.cu:[[@LINE+24]]:3: remark: not fused: the run writes 'x', which 'rowmax' reads [-Rpass-missed=fuse-epilogue]
// CHECK-NOT: fused{{_}}rowmax
// CHECK: rowmax<<<(R + 127) / 128, 128, 0, stream>>>(x, m, R, C);
#include <cuda_runtime.h>

__global__ void rowmax(const float* x, float* m, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float v = x[r * C];
  for (int c = 1; c < C; ++c) v = fmaxf(v, x[r * C + c]);
  m[r] = v;
}

__global__ void shift(const float* m, float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = 2.f * m[i]; x[i] = 0.f; }
}

// kfuse: inout x float[R][C]
// kfuse: out y float[R]
// kfuse: tune R=4096 C=256
extern "C" void rowmax_clear(float* x, float* y, int R, int C, cudaStream_t stream) {
  float* m;
  cudaMallocAsync(&m, R * sizeof(float), stream);
  rowmax<<<(R + 127) / 128, 128, 0, stream>>>(x, m, R, C);
  shift<<<(R + 255) / 256, 256, 0, stream>>>(m, x, y, R);
  cudaFreeAsync(m, stream);
}
