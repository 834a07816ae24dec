// gelu: the reference of the planted variants test/runner/planted/gelu-*.cu. GELU in its
// tanh form, as PyTorch's approximate='tanh' computes it, one thread per element.
#include <cuda_runtime.h>
#include <math.h>

__global__ void gelu_tanh(const float* x, float* y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float v = x[i];
  float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  y[i] = 0.5f * v * (1.f + tanhf(u));
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune  N=4194304
// kfuse: check N=1001
// kfuse: assume N >= 1
extern "C" void gelu(const float* x, float* y, int N, cudaStream_t stream) {
  gelu_tanh<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}
