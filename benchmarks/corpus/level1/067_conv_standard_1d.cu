// KernelBench level 1, problem 67: Conv1d(in_channels, out_channels, kernel_size=K), no bias,
// stride 1, padding 0, on (N, Cin, L).
#include <cuda_runtime.h>

__global__ void conv1d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              float* __restrict__ y, int Cin, int L, int K) {
  const int Lout = L - K + 1;
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int co = blockIdx.y;
  const int n = blockIdx.z;
  const int Cout = gridDim.y;
  if (o >= Lout) return;
  float acc = 0.f;
  for (int ci = 0; ci < Cin; ++ci) {
    const float* xr = x + ((size_t)n * Cin + ci) * L + o;
    const float* wr = w + ((size_t)co * Cin + ci) * K;
    for (int k = 0; k < K; ++k) acc += xr[k] * wr[k];
  }
  y[((size_t)n * Cout + co) * Lout + o] = acc;
}

// kfuse: in  x      float[N][Cin][L]
// kfuse: in  weight float[Cout][Cin][K]
// kfuse: out y      float[N][Cout][L - K + 1]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: assume L >= K && K >= 1
// kfuse: assume N <= 65535 && Cout <= 65535
// kfuse: tune  N=32 Cin=64 Cout=128 L=131072 K=3
// kfuse: check N=3 Cin=5 Cout=7 L=129 K=3
// kfuse: check N=2 Cin=1 Cout=3 L=33 K=5
extern "C" void conv_standard_1d(const float* x, const float* weight, float* y, int N, int Cin,
                                 int Cout, int L, int K, cudaStream_t stream) {
  const int Lout = L - K + 1;
  dim3 grid((Lout + 255) / 256, Cout, N);
  conv1d_kernel<<<grid, 256, 0, stream>>>(x, weight, y, Cin, L, K);
}
