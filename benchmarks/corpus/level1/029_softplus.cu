// KernelBench level 1, problem 29: Softplus (beta = 1, threshold = 20, the defaults)
#include <cuda_runtime.h>

#define SOFTPLUS_BETA 1.0f
#define SOFTPLUS_THRESHOLD 20.0f

__global__ void softplus_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    const float z = x[idx] * SOFTPLUS_BETA;
    y[idx] = z > SOFTPLUS_THRESHOLD ? x[idx] : log1pf(expf(z)) / SOFTPLUS_BETA;
  }
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2147483136 / dim
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=5 dim=33
extern "C" void softplus(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  const int n = batch_size * dim;
  const int block = 512;
  softplus_kernel<<<(n + block - 1) / block, block, 0, stream>>>(x, y, n);
}
