// When a later step still reads the producer's output, the output stays: the epilogue
// stores C's value and then runs the pointwise code on it; the allocation stays.
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: // kfuse fuse-epilogue of rowsum (line {{[0-9]+}}): halve (line {{[0-9]+}}), on s's element
// CHECK-NOT: the buffer is gone
// CHECK: { // epilogue: halve
// CHECK-NEXT: float s_v = acc;
// CHECK-NEXT: const int i = r;
// CHECK-NEXT: s[i] = s_v;
// CHECK-NEXT: if (i < n) {
// CHECK: h[i] = h_v;
// CHECK-LABEL: extern "C" void sums{{[(]}}
// CHECK: cudaMallocAsync(&s,
// CHECK-NEXT: fused_rowsum_halve<<<(R + 127) / 128, 128, 0, stream>>>(
// CHECK-NEXT: copy_out<<<
#include <cuda_runtime.h>

__global__ void rowsum(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += x[r * C + c];
  s[r] = acc;
}

__global__ void halve(const float* s, float* h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = 0.5f * s[i];
}

__global__ void copy_out(const float* s, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[n - 1 - i] = s[i];
}

// kfuse: in  x float[R][C]
// kfuse: out h float[R]
// kfuse: out t float[R]
// kfuse: tune R=4096 C=512
extern "C" void sums(const float* x, float* h, float* t, int R, int C, cudaStream_t stream) {
  float* s;
  cudaMallocAsync(&s, R * sizeof(float), stream);
  rowsum<<<(R + 127) / 128, 128, 0, stream>>>(x, s, R, C);
  halve<<<(R + 255) / 256, 256, 0, stream>>>(s, h, R);
  copy_out<<<(R + 255) / 256, 256, 0, stream>>>(s, t, R);
  cudaFreeAsync(s, stream);
}
