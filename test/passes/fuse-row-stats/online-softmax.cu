// A row max and the row's sum of exp(x - max), two block reductions, become one kernel
// that reads the row once (online softmax) and stores both; the output kernel stays.
// RUN: %kfuse %s --passes=fuse-row-stats --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse fuse-row-stats of row_max_kernel and row_sumexp_kernel (lines {{[0-9]+}}, {{[0-9]+}})
// CHECK: void fused_row_max_row_sumexp_merge(float& m, float& s, float m2, float s2)
// CHECK: s = s * expf(m - kf_mx) + s2 * expf(m2 - kf_mx);
// CHECK: __global__ void __launch_bounds__(1024) fused_row_max_row_sumexp(const float *__restrict x, float *__restrict row_max, int D, float *__restrict row_sum)
// CHECK: const float *xr = x + (size_t)blockIdx.x * D;
// CHECK: const float* kf_row = xr;
// CHECK: if (((unsigned long long)kf_row & 15) == 0) {
// CHECK: kf_s = kf_s * expf(kf_m - kf_mx) + expf(kf_v.x - kf_mx) + expf(kf_v.y - kf_mx);
// CHECK: kf_s2 = kf_s2 * expf(kf_m2 - kf_mx) + expf(kf_v.z - kf_mx) + expf(kf_v.w - kf_mx);
// CHECK: const float kf_x = xr[j];
// CHECK: __shfl_xor_sync(0xffffffffu, kf_s, kf_o)
// CHECK: row_max[blockIdx.x] = kf_m;
// CHECK-NEXT: row_sum[blockIdx.x] = kf_s;
// CHECK-LABEL: {{^}}extern "C" void softmax
// CHECK: fused_row_max_row_sumexp<<<rows, 1024, 0, stream>>>(x, row_max, D, row_sum);
// CHECK-NOT: row_sumexp_kernel<<<
// CHECK: out_kernel<<<
#include <cuda_runtime.h>
#include <math.h>

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int D) {
  __shared__ float smem[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, xr[j]);
  smem[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) row_max[blockIdx.x] = smem[0];
}

__global__ void row_sumexp_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                  float* __restrict__ row_sum, int D) {
  __shared__ float smem[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  const float m = row_max[blockIdx.x];
  float acc = 0.0f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) acc += expf(xr[j] - m);
  smem[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) row_sum[blockIdx.x] = smem[0];
}

__global__ void out_kernel(const float* x, const float* row_max, const float* row_sum, float* y, int D) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= D) return;
  y[(size_t)row * D + col] = expf(x[(size_t)row * D + col] - row_max[row]) / row_sum[row];
}

// kfuse: in  x float[rows][D]
// kfuse: out y float[rows][D]
// kfuse: tune rows=64 D=4096
extern "C" void softmax(const float* x, float* y, int rows, int D, cudaStream_t stream) {
  float *row_max, *row_sum;
  cudaMallocAsync(&row_max, rows * sizeof(float), stream);
  cudaMallocAsync(&row_sum, rows * sizeof(float), stream);
  row_max_kernel<<<rows, 256, 0, stream>>>(x, row_max, D);
  row_sumexp_kernel<<<rows, 256, 0, stream>>>(x, row_max, row_sum, D);
  dim3 grid((D + 255) / 256, rows);
  out_kernel<<<grid, 256, 0, stream>>>(x, row_max, row_sum, y, D);
  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
}
