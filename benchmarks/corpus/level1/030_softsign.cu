// KernelBench level 1, problem 30: Softsign, written as x / (1 + torch.abs(x)):
// three eager kernels (abs, add, div), each intermediate in global memory.
#include <cuda_runtime.h>

__global__ void abs_kernel(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = fabsf(in[i]);
}

__global__ void add_scalar_kernel(const float* in, float s, float* out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + s;
}

__global__ void div_kernel(const float* a, const float* b, float* out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] / b[i];
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=1 dim=3
extern "C" void softsign(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  size_t n = (size_t)batch_size * dim;
  unsigned int blocks = (unsigned int)((n + 255) / 256);
  float* t_abs;
  float* t_den;
  cudaMalloc(&t_abs, n * sizeof(float));
  cudaMalloc(&t_den, n * sizeof(float));
  abs_kernel<<<blocks, 256, 0, stream>>>(x, t_abs, n);
  add_scalar_kernel<<<blocks, 256, 0, stream>>>(t_abs, 1.0f, t_den, n);
  div_kernel<<<blocks, 256, 0, stream>>>(x, t_den, y, n);
  cudaFree(t_abs);
  cudaFree(t_den);
}
