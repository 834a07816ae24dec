// What the review of session 23 found, kept right. A loop whose bounds read what its body
// changes is not distributed: each part would evaluate them again after the parts before it
// ran. The declarations between a grid's loops stay after their own loop's header, where they
// were: `base` still reads the parameter j, not the inner loop's j; the outer `w` is there for
// the inner loop's bound, and the inner `w` still shadows it.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.remarks | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void scopes_serial(int n, int j, const float *x, float *a, float *y, float *z) {
  int lo = 0;
  for (int i = lo; i < n; ++i) {
    lo = 5;
    a[i] = x[i] * 2.0f;
  }
  for (int i = 0; i < n; ++i) {
    int base = i * n + j;
    for (int j = 0; j < n; ++j)
      y[i * n + j] = x[i * n + j] + (float)base;
  }
  for (int i = 0; i < n; ++i) {
    int w = i * n;
    for (int j = w - i * n; j < n; ++j) {
      int w = j;
      z[i * n + j] = x[i * n + j] + (float)w;
    }
  }
}

// kfuse: in x float[n][n]
// kfuse: out a float[n]
// kfuse: out y float[n][n]
// kfuse: out z float[n][n]
// kfuse: tune n=256 j=3
// kfuse: check n=37 j=5
extern "C" void scopes(const float *x, float *a, float *y, float *z, int n, int j, cudaStream_t stream) {
  scopes_serial<<<1, 1, 0, stream>>>(n, j, x, a, y, z);
}

// REMARK: band-scopes.cu:16:3: remark: kept serial: the loop over 'i': assigns 'lo' (declared outside it) in one iteration for the next [-Rpass-missed=parallelize]
// REMARK-NOT: distributed
// REMARK: band-scopes.cu:20:3: remark: parallelized: the loop over 'i' as a 2-D grid [-Rpass=parallelize]
// REMARK-NEXT: band-scopes.cu:25:3: remark: parallelized: the loop over 'i' as a 2-D grid [-Rpass=parallelize]

// CHECK:      for (int i = (blockIdx.y * blockDim.y + threadIdx.y); i < n; i += gridDim.y * blockDim.y) {
// CHECK-NEXT:   int base = i * n + j;
// CHECK-NEXT:   for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < n; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:     y[i * n + j] = x[i * n + j] + (float)base;
// CHECK:      for (int i = (blockIdx.y * blockDim.y + threadIdx.y); i < n; i += gridDim.y * blockDim.y) {
// CHECK-NEXT:   int w = i * n;
// CHECK-NEXT:   for (int j = w - i * n + (blockIdx.x * blockDim.x + threadIdx.x); j < n; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:     int w = j;
// CHECK-NEXT:     z[i * n + j] = x[i * n + j] + (float)w;
