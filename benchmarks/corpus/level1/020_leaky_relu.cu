// KernelBench level 1, problem 20: LeakyReLU(negative_slope)
#include <cuda_runtime.h>

__global__ void leaky_relu_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n,
                                  float negative_slope) {
  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v > 0.0f ? v : v * negative_slope;
  }
}

// kfuse: in  x float[B][D]
// kfuse: out y float[B][D]
// kfuse: init x uniform(0,1)
// kfuse: tune  B=4096 D=393216 negative_slope=0.01
// kfuse: check B=7 D=129 negative_slope=0.01
// kfuse: check B=3 D=33 negative_slope=-0.25
extern "C" void leaky_relu(const float* x, float* y, long B, long D, float negative_slope,
                           cudaStream_t stream) {
  size_t n = (size_t)B * (size_t)D;
  int blocks = 2048;
  leaky_relu_kernel<<<blocks, 512, 0, stream>>>(x, y, n, negative_slope);
}
