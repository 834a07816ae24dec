// KernelBench level 1, problem 44: AvgPool1d(kernel_size, stride, padding) on (N, C, L),
// count_include_pad=True (the default): every window divides by kernel_size.
#include <cuda_runtime.h>

__global__ void avg_pool1d_kernel(const float* x, float* y, int L, int Lout, int K, int S, int P) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int nc = blockIdx.y;
  if (o < Lout) {
    const float* row = x + (size_t)nc * L;
    const int start = o * S - P;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      const int p = start + k;
      sum += (p >= 0 && p < L) ? row[p] : 0.0f;
    }
    y[(size_t)nc * Lout + o] = sum / K;
  }
}

// kfuse: in  x float[N][C][L]
// kfuse: out y float[N][C][(L + 2 * P - K) / S + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume K >= 1 && S >= 1 && P >= 0 && 2 * P <= K
// kfuse: assume L + 2 * P >= K
// kfuse: assume N * C <= 65535
// kfuse: tune  N=64 C=128 L=65536 K=8 S=1 P=4
// kfuse: check N=3 C=5 L=33 K=8 S=1 P=4
// kfuse: check N=2 C=3 L=20 K=3 S=2 P=1
extern "C" void average_pooling_1d(const float* x, float* y, int N, int C, int L, int K, int S,
                                   int P, cudaStream_t stream) {
  const int Lout = (L + 2 * P - K) / S + 1;
  dim3 grid((Lout + 255) / 256, N * C);
  avg_pool1d_kernel<<<grid, 256, 0, stream>>>(x, y, L, Lout, K, S, P);
}
