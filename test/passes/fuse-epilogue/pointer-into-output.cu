// A producer that stores through a pointer local into its output (`float* dst = y + r * F`,
// then `dst[j] = v`) takes the epilogue at y's element r * F + j; the pointer local goes,
// since every store through it is the epilogue's.
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -R -o %t.cu 2>&1 | count 0
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK-LABEL: __global__ void fused_row_center_square{{[(]}}
// CHECK-NOT: float *dst
// CHECK: { // epilogue: square
// CHECK-NEXT: float c_v = src[j] - mean;
// CHECK-NEXT: const long long i = (size_t)r * F + g + j;
// CHECK-NEXT: if (i < n) {
// CHECK: y[i] = y_v;
#include <cuda_runtime.h>

__global__ void row_center(const float* x, float* c, int R, int F) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const int g = 0;
  const float* src = x + (size_t)r * F;
  float* dst = c + (size_t)r * F + g;
  float mean = 0.f;
  for (int j = 0; j < F; ++j) mean += src[j];
  mean /= F;
  for (int j = 0; j < F; ++j) dst[j] = src[j] - mean;
}

__global__ void square(const float* c, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = c[i] * c[i];
}

// kfuse: in  x float[R][F]
// kfuse: out y float[R][F]
// kfuse: tune R=4096 F=256
extern "C" void center_square(const float* x, float* y, int R, int F, cudaStream_t stream) {
  float* c;
  cudaMallocAsync(&c, (size_t)R * F * sizeof(float), stream);
  row_center<<<(R + 127) / 128, 128, 0, stream>>>(x, c, R, F);
  long long n = (long long)R * F;
  square<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(c, y, n);
  cudaFreeAsync(c, stream);
}
