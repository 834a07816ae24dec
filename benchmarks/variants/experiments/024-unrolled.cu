// Hand-written experiment (not kfuse output): level1/024 log_softmax with the reference's
// three kernels, the two row reductions re-mapped as a pass would: four independent
// accumulators per thread and a warp-shuffle block reduction. Measures what re-mapping
// the reductions alone is worth.
#include <cuda_runtime.h>
#include <math.h>

#define RED_THREADS 1024

__device__ __forceinline__ float block_max(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : -INFINITY;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  }
  return v;
}

__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  return v;
}

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int D) {
  __shared__ float red[32];
  const float* xr = x + (size_t)blockIdx.x * D;
  const int bd = blockDim.x;
  float m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
  int j = threadIdx.x;
  for (; j + 3 * bd < D; j += 4 * bd) {
    m0 = fmaxf(m0, xr[j]);
    m1 = fmaxf(m1, xr[j + bd]);
    m2 = fmaxf(m2, xr[j + 2 * bd]);
    m3 = fmaxf(m3, xr[j + 3 * bd]);
  }
  for (; j < D; j += bd) m0 = fmaxf(m0, xr[j]);
  const float m = block_max(fmaxf(fmaxf(m0, m1), fmaxf(m2, m3)), red);
  if (threadIdx.x == 0) row_max[blockIdx.x] = m;
}

__global__ void row_sumexp_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                  float* __restrict__ row_sum, int D) {
  __shared__ float red[32];
  const float* xr = x + (size_t)blockIdx.x * D;
  const float m = row_max[blockIdx.x];
  const int bd = blockDim.x;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  int j = threadIdx.x;
  for (; j + 3 * bd < D; j += 4 * bd) {
    a0 += expf(xr[j] - m);
    a1 += expf(xr[j + bd] - m);
    a2 += expf(xr[j + 2 * bd] - m);
    a3 += expf(xr[j + 3 * bd] - m);
  }
  for (; j < D; j += bd) a0 += expf(xr[j] - m);
  const float s = block_sum((a0 + a1) + (a2 + a3), red);
  if (threadIdx.x == 0) row_sum[blockIdx.x] = s;
}

__global__ void log_softmax_out_kernel(const float* __restrict__ x,
                                       const float* __restrict__ row_max,
                                       const float* __restrict__ row_sum, float* __restrict__ y,
                                       int D) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= D) return;
  const size_t idx = (size_t)row * D + col;
  y[idx] = x[idx] - row_max[row] - logf(row_sum[row]);
}

extern "C" void log_softmax(const float* x, float* y, int batch_size, int dim,
                            cudaStream_t stream) {
  float* row_max;
  float* row_sum;
  cudaMallocAsync(&row_max, batch_size * sizeof(float), stream);
  cudaMallocAsync(&row_sum, batch_size * sizeof(float), stream);
  row_max_kernel<<<batch_size, RED_THREADS, 0, stream>>>(x, row_max, dim);
  row_sumexp_kernel<<<batch_size, RED_THREADS, 0, stream>>>(x, row_max, row_sum, dim);
  dim3 grid((dim + 255) / 256, batch_size);
  log_softmax_out_kernel<<<grid, 256, 0, stream>>>(x, row_max, row_sum, y, dim);
  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
}
