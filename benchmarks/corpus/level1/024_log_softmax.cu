// KernelBench level 1, problem 24: LogSoftmax over dim=1 of a (batch_size, dim) matrix.
// Three kernels as an unfused implementation would run them: row max, row sum of
// exp(x - max), then out = x - max - log(sum). Row reductions: one block per row,
// shared-memory tree.
#include <cuda_runtime.h>
#include <math.h>

#define RED_THREADS 1024

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int D) {
  __shared__ float smem[RED_THREADS];
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
  __shared__ float smem[RED_THREADS];
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

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 65535
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=3 dim=1
// kfuse: check batch_size=5 dim=4099
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
