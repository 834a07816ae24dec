// KernelBench level 1, problem 28: HardSigmoid: relu6(x + 3) / 6
#include <cuda_runtime.h>

__global__ void hardsigmoid_kernel(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = fminf(fmaxf(x[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2146435071 / dim
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=33 dim=1
extern "C" void hard_sigmoid(const float* x, float* y, int batch_size, int dim,
                             cudaStream_t stream) {
  hardsigmoid_kernel<<<4096, 256, 0, stream>>>(x, y, batch_size * dim);
}
