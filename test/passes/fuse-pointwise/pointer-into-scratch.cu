// A normalisation reads its two statistics through pointers into one scratch allocation
// (`mean = stats`, `rstd = stats + N * G`): a read-only pointer into a buffer joins as a
// buffer of its own, passed as written, and is left out of the float4 path's alignment
// check with the other buffers read only at other elements (its own, not the float4's).
// Its division of the element index by the plane, a scalar expression, is computed once
// per float4 (the plane % 4 == 0 checked with the alignment), not per lane. The output
// compiles.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARKS --allow-empty %s
// REMARKS-NOT: group_norm_apply
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: group_norm_apply_pointwise(const float* __restrict__ x, const float* __restrict__ stats, const float* __restrict__ rstd, const float* __restrict__ weight, float* __restrict__ y, int C, int G, long HW, long long n) {
// CHECK: const unsigned long long kf_addresses = (unsigned long long)x | (unsigned long long)y;
// CHECK-NEXT: const long long kf_n4 = (kf_addresses & 15) == 0 && (HW) % 4 == 0 ? n / 4 : 0;
// CHECK-NEXT: for (long long kf_j = kf_start; kf_j < kf_n4; kf_j += kf_stride) {
// CHECK-NEXT: const long long kf_q1 = 4 * kf_j / (HW); // the four lanes' quotient
// CHECK: const long m1_nc = kf_q1;
// CHECK: float y_v = (x_4.w - stats[m1_stat]) * rstd[m1_stat] * weight[m1_c];
// CHECK: const long m1_nc = i / HW;
// CHECK-LABEL: {{^}}extern "C" void group_norm
// CHECK: group_norm_apply_pointwise<<<{{.*}}>>>(x, stats, rstd, weight, y, C, G, HW, total);
#include <cuda_runtime.h>

__global__ void group_stats(const float* x, float* mean, float* rstd, long len);

__global__ void group_norm_apply(const float* __restrict__ x, const float* __restrict__ mean,
                                 const float* __restrict__ rstd, const float* __restrict__ gamma,
                                 float* __restrict__ y, long total, int C, int G, long HW) {
  const long stride = (long)blockDim.x * gridDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const long nc = i / HW;
    const int c = (int)(nc % C);
    const long n = nc / C;
    const long stat = n * G + c / (C / G);
    y[i] = (x[i] - mean[stat]) * rstd[stat] * gamma[c];
  }
}

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  weight float[C]
// kfuse: out y      float[N][C][H][W]
// kfuse: assume C % G == 0
// kfuse: tune N=4 C=8 G=2 H=16 W=16
extern "C" void group_norm(const float* x, const float* weight, float* y, int N, int C, int G, int H,
                           int W, cudaStream_t stream) {
  const long HW = (long)H * W;
  const long total = (long)N * C * HW;
  float* stats;
  cudaMallocAsync(&stats, sizeof(float) * 2 * N * G, stream);
  float* mean = stats;
  float* rstd = stats + N * G;
  group_stats<<<N * G, 256, 0, stream>>>(x, mean, rstd, (long)(C / G) * HW);
  group_norm_apply<<<1024, 256, 0, stream>>>(x, mean, rstd, weight, y, total, C, G, HW);
  cudaFreeAsync(stats, stream);
}
