// KernelBench level 1, problem 25: Swish, written as x * torch.sigmoid(x): two eager kernels,
// the sigmoid materialized in global memory.
#include <cuda_runtime.h>

__global__ void sigmoid_fwd(const float* __restrict__ x, float* __restrict__ s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i] = 1.0f / (1.0f + __expf(-x[i]));
}

__global__ void mul_fwd(const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2147483392 / dim
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=3 dim=33
extern "C" void swish(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  const int n = batch_size * dim;
  const int blocks = (n + 255) / 256;
  float* sig = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&sig), sizeof(float) * (size_t)n, stream);
  sigmoid_fwd<<<blocks, 256, 0, stream>>>(x, sig, n);
  mul_fwd<<<blocks, 256, 0, stream>>>(x, sig, y, n);
  cudaFreeAsync(sig, stream);
}
