// KernelBench level 1, problem 87: pointwise 1x1 Conv2d(Cin, Cout), no bias.
// The HEAD output has 2^31 elements: int64 indexing throughout.
#include <cuda_runtime.h>

__global__ void conv1x1_kernel(const float* __restrict__ x, const float* __restrict__ w,
                               float* __restrict__ y, int64_t N, int64_t Cin, int64_t Cout,
                               int64_t HW) {
  const int64_t total = N * Cout * HW;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t s = i % HW;
    const int64_t co = (i / HW) % Cout;
    const int64_t n = i / (HW * Cout);
    const float* xp = x + n * Cin * HW + s;
    const float* wp = w + co * Cin;
    float acc = 0.0f;
    for (int64_t ci = 0; ci < Cin; ++ci) acc += xp[ci * HW] * wp[ci];
    y[i] = acc;
  }
}

// kfuse: in  x      float[N][Cin][H][W]
// kfuse: in  weight float[Cout][Cin][1][1]
// kfuse: out y      float[N][Cout][H][W]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: tune  N=16 Cin=64 Cout=128 H=1024 W=1024
// kfuse: check N=2 Cin=3 Cout=5 H=17 W=33
// kfuse: check N=1 Cin=1 Cout=7 H=3 W=1
extern "C" void conv_pointwise_2d(const float* x, const float* weight, float* y, int64_t N,
                                  int64_t Cin, int64_t Cout, int64_t H, int64_t W,
                                  cudaStream_t stream) {
  conv1x1_kernel<<<132 * 64, 256, 0, stream>>>(x, weight, y, N, Cin, Cout, H * W);
}
