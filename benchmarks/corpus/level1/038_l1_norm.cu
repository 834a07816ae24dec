// KernelBench level 1, problem 38: L1 normalize over dim=1 of (batch, dim):
//   y = x / torch.mean(torch.abs(x), dim=1, keepdim=True)
// abs kernel, per-row mean (one block per row, shared-memory tree), divide kernel.
#include <cuda_runtime.h>

static const int kRowThreads = 512;

__global__ void abs_kernel(const float* __restrict__ x, float* __restrict__ a, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    a[i] = fabsf(x[i]);
}

__global__ void row_mean_kernel(const float* __restrict__ a, float* __restrict__ m, size_t D) {
  __shared__ float red[kRowThreads];
  const float* row = a + blockIdx.x * D;
  float s = 0.0f;
  for (size_t j = threadIdx.x; j < D; j += kRowThreads) s += row[j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = kRowThreads >> 1; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) m[blockIdx.x] = red[0] / (float)D;
}

__global__ void row_div_kernel(const float* __restrict__ x, const float* __restrict__ m,
                               float* __restrict__ y, size_t n, size_t D) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = x[i] / m[i / D];
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 dim=65535
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=33 dim=4097
extern "C" void l1_norm(const float* x, float* y, size_t batch_size, size_t dim,
                        cudaStream_t stream) {
  const size_t n = batch_size * dim;
  float* a;
  float* m;
  cudaMallocAsync(&a, n * sizeof(float), stream);
  cudaMallocAsync(&m, batch_size * sizeof(float), stream);
  abs_kernel<<<4096, 256, 0, stream>>>(x, a, n);
  row_mean_kernel<<<(unsigned int)batch_size, kRowThreads, 0, stream>>>(a, m, dim);
  row_div_kernel<<<4096, 256, 0, stream>>>(x, m, y, n, dim);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(m, stream);
}
