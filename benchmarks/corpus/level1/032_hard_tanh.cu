// KernelBench level 1, problem 32: HardTanh, clamp to [-1, 1]
#include <cuda_runtime.h>

#define MIN_VAL -1.0f
#define MAX_VAL 1.0f

__global__ void hardtanh_kernel(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  v = v < MIN_VAL ? MIN_VAL : v;
  v = v > MAX_VAL ? MAX_VAL : v;
  y[i] = v;
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: tune  batch_size=4096 dim=393216
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=3 dim=1
extern "C" void hard_tanh(const float* x, float* y, long long batch_size, long long dim,
                          cudaStream_t stream) {
  long long n = batch_size * dim;
  hardtanh_kernel<<<(unsigned int)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
