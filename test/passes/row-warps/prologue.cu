// prologue=1: the pointwise run before a thread-per-row kernel comes along into the warp
// per row (level2/067's gelu before its global average pool). Each lane's load of the
// intermediate computes the element from the run's input, so `act` is never stored, and
// its allocation, the gelu launch and the free go. The default (prologue=0) leaves the
// run: the recipes the records hold. The variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=row-warps --pin row-warps.prologue=1 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// RUN: %kfuse %s --passes=row-warps --emit=transformed -o - | %strip-checks | FileCheck --check-prefix=DEFAULT %s
// CHECK: // kfuse variant row-warps(prologue=1)@prologue#1-#2
// CHECK-LABEL: // kfuse fuse-prologue: gelu (line {{[0-9]+}}), computed at each element of act that mean_rows (line {{[0-9]+}}) loads
// CHECK-NEXT: __device__ __forceinline__ float mean_rows_warps_act(const float* __restrict__ x, long long kf_i) {
// CHECK-LABEL: // kfuse row-warps of mean_rows (line {{[0-9]+}}): a warp per row, the lanes along its 1 loop
// CHECK-NEXT: // with the prologue mean_rows_warps_act: act is never stored
// CHECK-NEXT: __global__ void mean_rows_warps(float *__restrict out, int rows, int cols, const float* __restrict__ x) {
// CHECK-NEXT:   const int kf_lane = threadIdx.x & 31;
// CHECK-NEXT:   const int r = ((blockIdx.x * blockDim.x + threadIdx.x) / 32);
// CHECK:          const long long row_at = (long long)((size_t)r * cols); // was row, a pointer into in
// CHECK:          for (int j = kf_lane; j < cols; j += 32)
// CHECK-NEXT:       s += mean_rows_warps_act(x, row_at + (long long)(j));
// CHECK-NEXT:     s = kf_warp_sum(s);
// CHECK-LABEL: extern "C" void prologue(
// CHECK-NOT:    gelu<<<
// CHECK-NOT:    cudaMallocAsync
// CHECK:        mean_rows_warps<<<32u * (unsigned)((rows + 127) / 128), 128, 0, stream>>>(y, rows, cols, x);
// CHECK-NOT:    cudaFreeAsync
// DEFAULT: // kfuse variant row-warps@prologue#2
// DEFAULT: gelu<<<
// DEFAULT: mean_rows_warps<<<32u * (unsigned)((rows + 127) / 128), 128, 0, stream>>>(act, y, rows, cols);
#include <cuda_runtime.h>

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}

__global__ void mean_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = in + (size_t)r * cols;
  float s = 0.f;
  for (int j = 0; j < cols; ++j) s += row[j];
  out[r] = s / cols;
}

// kfuse: in  x float[rows][cols]
// kfuse: out y float[rows]
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  rows=8192 cols=1024
// kfuse: check rows=5 cols=33
// kfuse: check rows=70 cols=7
extern "C" void prologue(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  const size_t n = (size_t)rows * cols;
  float* act;
  cudaMallocAsync(&act, n * sizeof(float), stream);
  gelu<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, act, n);
  mean_rows<<<(rows + 127) / 128, 128, 0, stream>>>(act, y, rows, cols);
  cudaFreeAsync(act, stream);
}
