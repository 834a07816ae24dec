// KernelBench level 1, problem 94: MSE loss, torch.mean((predictions - targets) ** 2) -> scalar.
// Eager: subtract kernel, square kernel, then a two-stage mean (per-block partial sums,
// one block to finish).
#include <cuda_runtime.h>

#define RED_BLOCKS 1024
#define RED_THREADS 256

__global__ void sub_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] - b[i];
}

__global__ void square_kernel(const float* __restrict__ a, float* __restrict__ c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * a[i];
}

__global__ void partial_sum_kernel(const float* __restrict__ a, float* __restrict__ partial,
                                   size_t n) {
  __shared__ float sh[RED_THREADS];
  float s = 0.0f;
  for (size_t i = (size_t)blockIdx.x * RED_THREADS + threadIdx.x; i < n;
       i += (size_t)RED_BLOCKS * RED_THREADS)
    s += a[i];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int k = RED_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

__global__ void finish_mean_kernel(const float* __restrict__ partial, float* __restrict__ out,
                                   size_t n) {
  __shared__ float sh[RED_BLOCKS];
  sh[threadIdx.x] = partial[threadIdx.x];
  __syncthreads();
  for (int k = RED_BLOCKS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sh[0] / (float)n;
}

// kfuse: in  predictions float[batch_size][dim]
// kfuse: in  targets     float[batch_size][dim]
// kfuse: out loss        float[1]
// kfuse: init predictions uniform(0,1)
// kfuse: init targets uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 dim=32768
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=1 dim=3
extern "C" void mse_loss(const float* predictions, const float* targets, float* loss,
                         int batch_size, int dim, cudaStream_t stream) {
  const size_t n = (size_t)batch_size * dim;
  const unsigned int blocks = (unsigned int)((n + 255) / 256);
  float *diff, *sq, *partial;
  cudaMallocAsync(&diff, n * sizeof(float), stream);
  cudaMallocAsync(&sq, n * sizeof(float), stream);
  cudaMallocAsync(&partial, RED_BLOCKS * sizeof(float), stream);
  sub_kernel<<<blocks, 256, 0, stream>>>(predictions, targets, diff, n);
  square_kernel<<<blocks, 256, 0, stream>>>(diff, sq, n);
  partial_sum_kernel<<<RED_BLOCKS, RED_THREADS, 0, stream>>>(sq, partial, n);
  finish_mean_kernel<<<1, RED_BLOCKS, 0, stream>>>(partial, loss, n);
  cudaFreeAsync(diff, stream);
  cudaFreeAsync(sq, stream);
  cudaFreeAsync(partial, stream);
}
