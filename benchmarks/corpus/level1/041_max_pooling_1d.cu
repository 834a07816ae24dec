// KernelBench level 1, problem 41: MaxPool1d(kernel_size, stride, padding, dilation)
// on (N, C, L). One thread per output element; padding behaves as -inf.
#include <cuda_runtime.h>
#include <math.h>

__global__ void max_pool1d_kernel(const float* __restrict__ x, float* __restrict__ y, int total,
                                  int L, int Lout, int K, int S, int P, int dil) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int o = idx % Lout;
  int nc = idx / Lout;
  const float* row = x + (size_t)nc * L;
  int start = o * S - P;
  float m = -INFINITY;
  for (int k = 0; k < K; ++k) {
    int pos = start + k * dil;
    if (pos >= 0 && pos < L) m = fmaxf(m, row[pos]);
  }
  y[idx] = m;
}

// kfuse: in  x float[N][C][L]
// kfuse: out y float[N][C][(L + 2 * P - dilation * (K - 1) - 1) / S + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume K >= 1 && S >= 1 && dilation >= 1
// kfuse: assume P >= 0 && 2 * P <= K
// kfuse: assume L + 2 * P - dilation * (K - 1) - 1 >= 0
// kfuse: tune  N=64 C=192 L=65536 K=8 S=1 P=4 dilation=3
// kfuse: check N=3 C=5 L=33 K=8 S=1 P=4 dilation=3
// kfuse: check N=2 C=3 L=50 K=3 S=2 P=1 dilation=2
extern "C" void max_pooling_1d(const float* x, float* y, int N, int C, int L, int K, int S, int P,
                               int dilation, cudaStream_t stream) {
  const int Lout = (L + 2 * P - dilation * (K - 1) - 1) / S + 1;
  const int total = N * C * Lout;
  max_pool1d_kernel<<<(total + 255) / 256, 256, 0, stream>>>(x, y, total, L, Lout, K, S, P,
                                                             dilation);
}
