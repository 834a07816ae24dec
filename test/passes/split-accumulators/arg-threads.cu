// An argmax over the middle dimension, one thread a column: the arg form. The value and its
// index split together into 4 accumulators a thread and 4 threads a column (threads=4 of a
// block of 256); each pair starts from the initial one, and the pairs combine to the extreme
// value at its first index among equal ones (`==` and `<` on the indices), as the
// reference's strict `>` keeps the first. The index gets its own shared array.
// RUN: %kfuse %s --passes=split-accumulators --pin split-accumulators.ways=4 --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant split-accumulators(threads=4,ways=4)@argmax_mid#0
// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(1024) argmax_cols_split(
// CHECK:      __shared__ float kf_part[4][256]; // each thread's part of best
// CHECK-NEXT: __shared__ int kf_part_best_i[4][256]; // and its best_i
// CHECK:          float kf_best1 = best, kf_best2 = best, kf_best3 = best;
// CHECK-NEXT:     int kf_best_i1 = best_i, kf_best_i2 = best_i, kf_best_i3 = best_i;
// CHECK:            const int i = (int)(kf_j + 4);
// CHECK-NEXT:       float v = p[(size_t)i * D2];
// CHECK-NEXT:       if (v > kf_best1) {
// CHECK-NEXT:         kf_best1 = v;
// CHECK-NEXT:         kf_best_i1 = i;
// CHECK-NEXT:       }
// CHECK:          // the extreme value, at its first index among equal ones
// CHECK-NEXT:     if (kf_best1 > best || (kf_best1 == best && kf_best_i1 < best_i)) {
// CHECK-NEXT:       best = kf_best1;
// CHECK-NEXT:       best_i = kf_best_i1;
// CHECK-NEXT:     }
// CHECK:        kf_part[threadIdx.y][threadIdx.x] = best;
// CHECK-NEXT:   kf_part_best_i[threadIdx.y][threadIdx.x] = best_i;
// CHECK:        __syncthreads();
// CHECK-NEXT:   if (threadIdx.y == 0 && kf_live) {
// CHECK-NEXT:     float best = kf_part[0][threadIdx.x];
// CHECK-NEXT:     int best_i = kf_part_best_i[0][threadIdx.x];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:     for (int kf_y = 1; kf_y < 4; kf_y++) { // the extreme value, at its first index among equal ones
// CHECK-NEXT:       if (kf_part[kf_y][threadIdx.x] > best || (kf_part[kf_y][threadIdx.x] == best && kf_part_best_i[kf_y][threadIdx.x] < best_i)) {
// CHECK:          idx[(size_t)b * D2 + j] = best_i;
// CHECK-LABEL: {{^}}extern "C" void argmax_mid
// CHECK: argmax_cols_split<<<grid, dim3(256, 4), 0, stream>>>(x, out, D1, D2);
#include <cuda_runtime.h>

__global__ void argmax_cols(const float* __restrict__ x, long long* __restrict__ idx, int D1, int D2) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= D2) return;
  const float* p = x + (size_t)b * D1 * D2 + j;
  float best = p[0];
  int best_i = 0;
  for (int i = 1; i < D1; ++i) {
    float v = p[(size_t)i * D2];
    if (v > best) {
      best = v;
      best_i = i;
    }
  }
  idx[(size_t)b * D2 + j] = best_i;
}

// kfuse: in  x   float[B][D1][D2]
// kfuse: out out int64[B][D2]
// kfuse: init x int(0,8)
// kfuse: assume D1 >= 1
// kfuse: tune  B=16 D1=1000 D2=300
// kfuse: check B=3 D1=33 D2=129
// kfuse: check B=2 D1=1 D2=7
// kfuse: check B=1 D1=5 D2=1
extern "C" void argmax_mid(const float* x, long long* out, int B, int D1, int D2, cudaStream_t stream) {
  dim3 grid((D2 + 255) / 256, B);
  argmax_cols<<<grid, 256, 0, stream>>>(x, out, D1, D2);
}
