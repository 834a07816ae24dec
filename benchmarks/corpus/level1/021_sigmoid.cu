// KernelBench level 1, problem 21: Sigmoid
#include <cuda_runtime.h>

__device__ __forceinline__ float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }

__global__ void sigmoid_kernel(const float* __restrict__ in, float* __restrict__ out, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = sigmoidf(in[i]);
  }
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=33 dim=3
extern "C" void sigmoid(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  const long n = (long)batch_size * dim;
  const int threads = 1024;
  sigmoid_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(x, y, n);
}
