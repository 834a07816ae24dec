// KernelBench level 1, problem 22: Tanh
// (The entry is not called `tanh`: that name is the C library's.)
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* x, float* y, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(x[i]);
}

// kfuse: in  x float[N][D]
// kfuse: out y float[N][D]
// kfuse: init x uniform(0,1)
// kfuse: assume N <= 4294967040 / D
// kfuse: tune  N=4096 D=393216
// kfuse: check N=7 D=129
// kfuse: check N=2 D=1
extern "C" void tanh_activation(const float* x, float* y, unsigned int N, unsigned int D,
                                cudaStream_t stream) {
  const unsigned int n = N * D;
  tanh_kernel<<<(n + 127) / 128, 128, 0, stream>>>(x, y, n);
}
