// A thread-per-output reduction over the middle dimension (one thread per column j of
// batch b sums x[b][i][j] over i) shares each output among 8 threads: the block of 128, a
// dim3 variable never assigned, gains a y dimension of 8 (dim3(block.x, 8)); thread y sums
// the rows y, y + 8, ... in 4 accumulators, and thread y = 0 adds the 8 parts in the order
// of y and stores. The guard `if (j < D2) { ... }`, read once before the loop, covers the
// loop and the combination;
// the declarations the store needs are outside the guard, so none is repeated. The
// variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: // kfuse variant split-accumulators(threads=8,ways=4)@col_sum_entry#0
// CHECK: // kfuse split-accumulators of col_sum (line {{[0-9]+}}): each output's loop over 8 threads, 4 accumulators each
// CHECK-NEXT: __global__ void __launch_bounds__(1024) col_sum_split(const float *__restrict x, float *__restrict out, int D1, int D2) {
// CHECK-NEXT:   const int j = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   const int b = blockIdx.y;
// CHECK-NEXT:   __shared__ float kf_part[8][128]; // each thread's part of s
// CHECK-NEXT:   const bool kf_live = j < D2; // the guard, read once: no thread leaves before the barrier
// CHECK-NEXT:   if (kf_live) {
// CHECK-NEXT:     const float *base = x + (size_t)b * D1 * D2 + j;
// CHECK-NEXT:     float s = 0.0f;
// CHECK-NEXT:     { // kfuse split-accumulators: s over 8 threads (threadIdx.y), 4 accumulators each
// CHECK-NEXT:       long long kf_j = (long long)threadIdx.y;
// CHECK-NEXT:       float kf_s1 = 0, kf_s2 = 0, kf_s3 = 0;
// CHECK-NEXT:       for (; kf_j + 24 < (long long)(D1); kf_j += 32) {
// CHECK:              const int i = (int)(kf_j + 24);
// CHECK-NEXT:         kf_s3 += base[(size_t)i * D2];
// CHECK:            for (; kf_j < (long long)(D1); kf_j += 8) {
// CHECK:            s = (s + kf_s1) + (kf_s2 + kf_s3);
// CHECK-NEXT:     }
// CHECK-NEXT:     kf_part[threadIdx.y][threadIdx.x] = s;
// CHECK-NEXT:   }
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   if (threadIdx.y == 0 && kf_live) {
// CHECK-NEXT:     float s = kf_part[0][threadIdx.x];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:     for (int kf_y = 1; kf_y < 8; kf_y++) s += kf_part[kf_y][threadIdx.x];
// CHECK-NEXT:     out[(size_t)b * D2 + j] = s;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-LABEL: {{^}}extern "C" void col_sum_entry
// CHECK: col_sum_split<<<grid, dim3(block.x, 8), 0, stream>>>(x, out, dim1, dim2);
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void col_sum(const float* __restrict__ x, float* __restrict__ out, int D1, int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j < D2) {
    const float* base = x + (size_t)b * D1 * D2 + j;
    float s = 0.0f;
    for (int i = 0; i < D1; ++i) s += base[(size_t)i * D2];
    out[(size_t)b * D2 + j] = s;
  }
}

// kfuse: in  x   float[batch][dim1][dim2]
// kfuse: out out float[batch][dim2]
// kfuse: tune  batch=16 dim1=1024 dim2=1000
extern "C" void col_sum_entry(const float* x, float* out, int batch, int dim1, int dim2,
                              cudaStream_t stream) {
  dim3 block(128);
  dim3 grid((dim2 + 127) / 128, batch);
  col_sum<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
