// A producer that stores from inside a loop (a grid-stride loop over rows) runs the
// epilogue at each store, inside the loop, at the store's index.
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: // kfuse fuse-epilogue of row_mean (line {{[0-9]+}}): exp_scale (line {{[0-9]+}}), on m's element; the buffer is gone
// CHECK: for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < R; r += gridDim.x * blockDim.x) {
// CHECK: { // epilogue: exp_scale
// CHECK-NEXT: float m_v = acc / C;
// CHECK-NEXT: const int i = r;
// CHECK-NEXT: if (i < n) {
// CHECK: y[i] = y_v;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
#include <cuda_runtime.h>

__global__ void row_mean(const float* x, float* m, int R, int C) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < R; r += gridDim.x * blockDim.x) {
    float acc = 0.f;
    for (int c = 0; c < C; ++c) acc += x[r * C + c];
    m[r] = acc / C;
  }
}

__global__ void exp_scale(const float* m, float* y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(m[i]) * s;
}

// kfuse: in  x float[R][C]
// kfuse: out y float[R]
// kfuse: tune R=8192 C=256
extern "C" void mean_exp(const float* x, float* y, int R, int C, cudaStream_t stream) {
  float* m;
  cudaMallocAsync(&m, R * sizeof(float), stream);
  row_mean<<<64, 128, 0, stream>>>(x, m, R, C);
  exp_scale<<<(R + 255) / 256, 256, 0, stream>>>(m, y, 3.f, R);
  cudaFreeAsync(m, stream);
}
