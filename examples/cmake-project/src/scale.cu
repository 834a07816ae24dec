// y = a x + b, elementwise: plain CUDA without kfuse annotations, which kfuse leaves alone.
#include "activations.h"

__global__ void scale_add_kernel(const float* x, float* y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

extern "C" void scale_add(const float* x, float* y, float a, float b, int n, cudaStream_t stream) {
  scale_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, a, b, n);
}
