// KernelBench level 1, problem 19: ReLU
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = v > 0.f ? v : 0.f;
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2147483392 / dim
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=1 dim=33
extern "C" void relu(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  int n = batch_size * dim;
  relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
