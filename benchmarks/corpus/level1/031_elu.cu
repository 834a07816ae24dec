// KernelBench level 1, problem 31: ELU(alpha)
#include <cuda_runtime.h>

__global__ void elu_kernel(const float* __restrict__ x, float* __restrict__ y, float alpha,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float r;
    if (v > 0.0f) {
      r = v;
    } else {
      r = alpha * expm1f(v);
    }
    y[i] = r;
  }
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2147483392 / dim
// kfuse: tune  batch_size=4096 dim=393216 alpha=1.0
// kfuse: check batch_size=7 dim=129 alpha=1.0
// kfuse: check batch_size=3 dim=33 alpha=0.5
extern "C" void elu(const float* x, float* y, int batch_size, int dim, float alpha,
                    cudaStream_t stream) {
  int n = batch_size * dim;
  elu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, alpha, n);
}
