// KernelBench level 1, problem 26: GELU (exact erf form, F.gelu default)
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f));
}

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = gelu_erf(x[i]);
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=1 dim=1
extern "C" void gelu(const float* x, float* y, size_t batch_size, size_t dim,
                     cudaStream_t stream) {
  const size_t n = batch_size * dim;
  const size_t blocks = (n + 255) / 256;
  gelu_kernel<<<dim3((unsigned int)blocks), dim3(256), 0, stream>>>(x, y, n);
}
