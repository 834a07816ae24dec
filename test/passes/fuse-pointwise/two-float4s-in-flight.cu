// With ilp=2 (the second variant: fuse-pointwise's first parameter), each thread of the
// vector path loads two float4s a grid's stride apart before it computes either, so that
// an element function with a division or an exp does not leave the memory system idle;
// the second float4 exists when it is inside the float4 range (else a constant stands in,
// not a copy of the first: that would wait for the first load), and each float4's code
// (its row split on a two-dimensional member, its lanes, its stores) runs on the values
// loaded for it. Blocks cover twice the elements, and the variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: rm -rf %t && mkdir %t
// RUN: %kfuse --bundle %t/b %s --passes=fuse-pointwise --max-variants=2
// RUN: %strip-checks %t/b/manifest.txt | FileCheck --check-prefix=MANIFEST %s
// MANIFEST: variant v1 v1.cu fuse-pointwise(block=256,vec=4)@shifted#1-#2
// MANIFEST-NEXT: variant v2 v2.cu fuse-pointwise(block=256,vec=4,ilp=2)@shifted#1-#2
// RUN: %strip-checks %t/b/v2.cu | FileCheck %s
// CHECK: // kfuse fuse-pointwise (block 256, vec 4, ilp 2: two float4s loaded a thread before either is
// CHECK: for (long long kf_q = kf_start; kf_q < kf_n4; kf_q += 2 * kf_stride) {
// CHECK-NEXT: const bool kf_two = kf_q + kf_stride < kf_n4; // this thread's second float4
// CHECK-NEXT: const float4 kf_zero4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
// CHECK-NEXT: const float4 x_4_0 = reinterpret_cast<const float4*>(x)[kf_q];
// CHECK-NEXT: const float4 x_4_1 = kf_two ? reinterpret_cast<const float4*>(x)[kf_q + kf_stride] : kf_zero4;
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int kf_u = 0; kf_u < 1 + kf_two; kf_u++) {
// CHECK-NEXT: const long long kf_j = kf_q + kf_u * kf_stride;
// CHECK-NEXT: const long long kf_row1 = 4 * kf_j / (cols);
// CHECK-NEXT: const float4 x_4 = kf_u ? x_4_1 : x_4_0;
// CHECK-NEXT: float4 y_o;
// CHECK: float t_v = x_4.w - row_max[m1_r];
// CHECK: reinterpret_cast<float4*>(y)[kf_j] = y_o;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: for (long long kf_i = 4 * kf_n4 + kf_start; kf_i < n; kf_i += kf_stride) {
// CHECK: fused_sub_row_max_scale<<<(unsigned)(((long long)rows * (long long)cols) / 2048 + 1 < 1048576 ? ((long long)rows * (long long)cols) / 2048 + 1 : 1048576), 256, 0, stream>>>
// RUN: sh -c 'cd %t/b && %nvcc -Werror all-warnings -shared -Xcompiler -fPIC -o v2.so v2.shim.cu'
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
