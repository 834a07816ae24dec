#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=oops
extern "C" void scale(const float* x, float* y, int N, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}
