// The other form of guard, `if (o >= n) return;`, becomes the condition of both halves
// (kf_live = o < n, read once before the loop). A sum that starts from a value (the bias) counts it once: threads y > 0 start
// from 0. The combination repeats only the declarations the code after the loop needs
// (the row r, not the column c or the pointer p). A block of 256 gets 4 threads a column
// (1024 in all). A maximum combines its parts with fmaxf.
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant split-accumulators(threads=4,ways=4)@biased_sums#0+split-accumulators(threads=4,ways=4)@biased_sums#1
// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(1024) biased_sum_split(
// CHECK-NEXT:   const int o = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   __shared__ float kf_part[4][256]; // each thread's part of s
// CHECK-NEXT:   const bool kf_live = o < n; // the guard, read once: no thread leaves before the barrier
// CHECK-NEXT:   if (kf_live) {
// CHECK-NEXT:     const int r = o / C;
// CHECK-NEXT:     const int c = o % C;
// CHECK-NEXT:     const float *p = x + (size_t)r * K * C + c;
// CHECK-NEXT:     float s = bias[r];
// CHECK-NEXT:     if (threadIdx.y != 0) s = 0; // the initial value counted once, by y = 0
// CHECK-NEXT:     { // kfuse split-accumulators: s over 4 threads (threadIdx.y), 4 accumulators each
// CHECK-NEXT:       long long kf_j = (long long)threadIdx.y * (long long)(step);
// CHECK-NEXT:       float kf_s1 = 0, kf_s2 = 0, kf_s3 = 0;
// CHECK-NEXT:       for (; kf_j + 3 * 4 * (long long)(step) < (long long)(K); kf_j += 4 * 4 * (long long)(step)) {
// CHECK:          __syncthreads();
// CHECK-NEXT:   if (threadIdx.y == 0 && kf_live) {
// CHECK-NEXT:     const int r = o / C;
// CHECK-NEXT:     float s = kf_part[0][threadIdx.x];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:     for (int kf_y = 1; kf_y < 4; kf_y++) s += kf_part[kf_y][threadIdx.x];
// CHECK-NEXT:     out[o] = s * scale[r];
// CHECK-NEXT:   }
// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(1024) col_max_split(
// CHECK:        float m = kf_part[0][threadIdx.x];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:     for (int kf_y = 1; kf_y < 4; kf_y++) m = fmaxf(m, kf_part[kf_y][threadIdx.x]);
// CHECK-LABEL: {{^}}extern "C" void biased_sums
// CHECK: biased_sum_split<<<(n + 255) / 256, dim3(256, 4), 0, stream>>>(x, bias, scale, out, n, K, C, 1);
// CHECK: col_max_split<<<(n + 255) / 256, dim3(256, 4), 0, stream>>>(x, mx, n, K, C);
#include <cuda_runtime.h>

__global__ void biased_sum(const float* x, const float* bias, const float* scale, float* out, int n, int K,
                           int C, int step) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n) return;
  const int r = o / C;
  const int c = o % C;
  const float* p = x + (size_t)r * K * C + c;
  float s = bias[r];
  for (int k = 0; k < K; k += step) s += p[(size_t)k * C];
  out[o] = s * scale[r];
}

__global__ void col_max(const float* x, float* out, int n, int K, int C) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n) return;
  const float* p = x + (size_t)(o / C) * K * C + o % C;
  float m = -3.0e38f;
  for (int k = 0; k < K; ++k) m = fmaxf(m, p[(size_t)k * C]);
  out[o] = m;
}

// kfuse: in  x     float[rows][K][C]
// kfuse: in  bias  float[rows]
// kfuse: in  scale float[rows]
// kfuse: out out   float[rows][C]
// kfuse: out mx    float[rows][C]
// kfuse: tune rows=8 K=64 C=100
extern "C" void biased_sums(const float* x, const float* bias, const float* scale, float* out, float* mx,
                            int rows, int K, int C, cudaStream_t stream) {
  const int n = rows * C;
  biased_sum<<<(n + 255) / 256, 256, 0, stream>>>(x, bias, scale, out, n, K, C, 1);
  col_max<<<(n + 255) / 256, 256, 0, stream>>>(x, mx, n, K, C);
}
