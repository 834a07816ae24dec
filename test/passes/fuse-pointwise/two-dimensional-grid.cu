// A launch over a two-dimensional grid (a row per blockIdx.y, a column per thread of
// blockIdx.x, the guard on the column) is pointwise over rows * cols elements: its element
// r * cols + c. It fuses with a one-dimensional launch over the same count; the fused kernel
// splits each element back into its row and column, once per float4 on the vector path
// (which then needs cols % 4 == 0, so that no float4 spans two rows), and counts in 64 bits.
// Declarations the element no longer uses (a float4 lane reads x from the float4, not at
// idx) are left out.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: // kfuse fuse-pointwise (block 256, vec 4) of sub_row_max (line {{[0-9]+}}), scale (line {{[0-9]+}}), over (rows * cols) elements
// CHECK-NEXT: fused_sub_row_max_scale(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y, int cols, float s1, long long n)
// CHECK: const long long kf_n4 = (kf_addresses & 15) == 0 && (cols) % 4 == 0 ? n / 4 : 0;
// CHECK: const long long kf_row1 = 4 * kf_j / (cols);
// CHECK: const int m1_r = (int)kf_row1;
// CHECK-NEXT: float t_v = x_4.x - row_max[m1_r];
// CHECK: for (long long kf_i = 4 * kf_n4 + kf_start; kf_i < n; kf_i += kf_stride) {
// CHECK-NEXT: const long long i = (long long)kf_i;
// CHECK-NEXT: // sub_row_max
// CHECK-NEXT: const int m1_r = (int)(i / (cols));
// CHECK-NEXT: const int m1_c = (int)(i % (cols));
// CHECK-NEXT: const size_t m1_idx = (size_t)m1_r * cols + m1_c;
// CHECK-NEXT: float t_v = x[m1_idx] - row_max[m1_r];
// CHECK-NEXT: // scale
// CHECK-NEXT: float y_v = t_v * s1;
// CHECK-NEXT: y[i] = y_v;
// CHECK-LABEL: {{^}}extern "C" void shifted
// CHECK-NOT: cudaMallocAsync
// CHECK: fused_sub_row_max_scale<<<(unsigned)(((long long)rows * (long long)cols) / 1024 + 1 < 1048576 ? ((long long)rows * (long long)cols) / 1024 + 1 : 1048576), 256, 0, stream>>>(x, row_max, y, cols, 0.5f, ((long long)rows * (long long)cols));
// CHECK-NOT: cudaFreeAsync
#include <cuda_runtime.h>

__global__ void sub_row_max(const float* x, const float* row_max, float* t, int cols) {
  const int r = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const size_t idx = (size_t)r * cols + c;
  t[idx] = x[idx] - row_max[r];
}

__global__ void scale(const float* t, float s, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = t[i] * s;
}

// kfuse: in  x float[rows][cols]
// kfuse: in  row_max float[rows]
// kfuse: out y float[rows][cols]
// kfuse: tune rows=64 cols=1024
extern "C" void shifted(const float* x, const float* row_max, float* y, int rows, int cols,
                        cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, (size_t)rows * cols * sizeof(float), stream);
  dim3 grid((cols + 255) / 256, rows);
  sub_row_max<<<grid, 256, 0, stream>>>(x, row_max, t, cols);
  scale<<<(rows * cols + 255) / 256, 256, 0, stream>>>(t, 0.5f, y, rows * cols);
  cudaFreeAsync(t, stream);
}
