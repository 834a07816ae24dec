// KernelBench level 1, problem 27: SELU
#include <cuda_runtime.h>

constexpr float kSeluAlpha = 1.6732632423543772848170429916717f;
constexpr float kSeluScale = 1.0507009873554804934193349852946f;

__global__ void selu_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = kSeluScale * (v > 0.0f ? v : kSeluAlpha * expm1f(v));
  }
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=3 dim=33
extern "C" void selu(const float* x, float* y, long batch_size, long dim, cudaStream_t stream) {
  const long n = batch_size * dim;
  selu_kernel<<<(unsigned int)((n + 511) / 512), 512, 0, stream>>>(x, y, n);
}
