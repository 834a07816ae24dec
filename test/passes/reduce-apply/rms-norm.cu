// RMS norm over the channels, as eager runs it: square, a mean over dim 1 with one thread
// per (n, s), add eps, sqrt, and the broadcast divide. One kernel with the reduction's
// threads: the column of x loaded once (kept in registers up to 64 channels, every load
// issued before the first sum; read again above that), the square computed where the mean
// loads it and summed in the
// reference's order, add and sqrt on the statistic, then the divide down the column with
// the statistic in a register; the kernel is bounded to 768 threads an SM (three blocks:
// 80 registers, the cache's 64 among them). sq, ms, ms_eps and rms go with their allocations; the
// kernel has no unused declaration (the reduction's row index n is not needed) and
// compiles under -Werror all-warnings.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=reduce-apply --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: // kfuse reduce-apply of mean_dim1_kernel (line {{[0-9]+}}), a statistic per thread over a middle dimension, and
// CHECK: __global__ void __launch_bounds__(256, 3) fused_mean_dim1_kernel_div_bcast_kernel(int C, int S, const float* __restrict__ x, float eps, float* __restrict__ y) {
// CHECK-NEXT: int s = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: if (s >= S) {
// CHECK: float acc = 0.f;
// CHECK-NEXT: float kf_col[64]; // the column, while it fits
// CHECK-NEXT: if ((C) <= 64) {
// CHECK: kf_col[kf_c] = x[(size_t)blockIdx.y * C * S + (blockIdx.x * blockDim.x + threadIdx.x) + (size_t)c * S];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK: const float kf_x = kf_col[kf_c];
// CHECK: float sq_v = m1_v * m1_v;
// CHECK-NEXT: acc += sq_v;
// CHECK: const float kf_r = acc / C;
// CHECK: float rms_v = sqrtf(ms_eps_v);
// CHECK-NEXT: kf_stat = rms_v;
// CHECK: const float kf_x = kf_col[kf_c];
// CHECK: float y_v = kf_x / kf_stat;
// CHECK-NEXT: y[i_3] = y_v;
// CHECK: } else {
// CHECK-NEXT: for (int c = 0; c < C; c += 1) {
// CHECK-LABEL: {{^}}extern "C" void rms_norm
// CHECK-NOT: cudaMallocAsync
// CHECK: fused_mean_dim1_kernel_div_bcast_kernel<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(C, S, x, eps, y);
// CHECK-NOT: cudaFreeAsync
#include <cuda_runtime.h>

__global__ void square_kernel(const float* __restrict__ x, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = v * v;
  }
}

__global__ void mean_dim1_kernel(const float* __restrict__ in, float* __restrict__ out, int C, int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  const float* p = in + (size_t)n * C * S + s;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += p[(size_t)c * S];
  out[(size_t)n * S + s] = acc / C;
}

__global__ void add_scalar_kernel(const float* __restrict__ in, float* __restrict__ out, float v, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + v;
}

__global__ void sqrt_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]);
}

__global__ void div_bcast_kernel(const float* __restrict__ x, const float* __restrict__ r, float* __restrict__ y,
                                 int C, int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int nc = blockIdx.y;
  if (s >= S) return;
  int n = nc / C;
  size_t idx = (size_t)nc * S + s;
  y[idx] = x[idx] / r[(size_t)n * S + s];
}

// kfuse: in  x float[N][C][H][W]
// kfuse: out y float[N][C][H][W]
// kfuse: tune N=4 C=16 H=32 W=32 eps=1e-5
extern "C" void rms_norm(const float* x, float* y, int N, int C, int H, int W, float eps, cudaStream_t stream) {
  const int S = H * W;
  const size_t n_full = (size_t)N * C * S;
  const size_t n_red = (size_t)N * S;
  float *sq, *ms, *ms_eps, *rms;
  cudaMallocAsync(&sq, n_full * sizeof(float), stream);
  cudaMallocAsync(&ms, n_red * sizeof(float), stream);
  cudaMallocAsync(&ms_eps, n_red * sizeof(float), stream);
  cudaMallocAsync(&rms, n_red * sizeof(float), stream);
  square_kernel<<<(unsigned)((n_full + 255) / 256), 256, 0, stream>>>(x, sq, n_full);
  mean_dim1_kernel<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(sq, ms, C, S);
  add_scalar_kernel<<<(unsigned)((n_red + 255) / 256), 256, 0, stream>>>(ms, ms_eps, eps, n_red);
  sqrt_kernel<<<(unsigned)((n_red + 255) / 256), 256, 0, stream>>>(ms_eps, rms, n_red);
  div_bcast_kernel<<<dim3((S + 255) / 256, N * C), 256, 0, stream>>>(x, rms, y, C, S);
  cudaFreeAsync(sq, stream);
  cudaFreeAsync(ms, stream);
  cudaFreeAsync(ms_eps, stream);
  cudaFreeAsync(rms, stream);
}
