// KernelBench level 1, problem 79: ConvTranspose1d(Cin, Cout, K, stride, padding, dilation),
// no bias, on (N, Cin, L). Weight layout (Cin, Cout, K), as nn.ConvTranspose1d stores it.
// Gather form: one thread per output element collects every (ci, k) that lands on it.
#include <cuda_runtime.h>

__global__ void conv_transpose1d_gather(const float* __restrict__ x, const float* __restrict__ w,
                                        float* __restrict__ y, int N, int Cin, int Cout, int L,
                                        int Lout, int K, int S, int P, int dil) {
  long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long total = (long)N * Cout * Lout;
  if (idx >= total) return;
  int o = (int)(idx % Lout);
  int co = (int)((idx / Lout) % Cout);
  int n = (int)(idx / ((long)Lout * Cout));
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    int t = o + P - k * dil;
    if (t < 0 || t % S != 0) continue;
    int i = t / S;
    if (i >= L) continue;
    for (int ci = 0; ci < Cin; ++ci) {
      acc += x[((long)n * Cin + ci) * L + i] * w[((long)ci * Cout + co) * K + k];
    }
  }
  y[idx] = acc;
}

// kfuse: in  x      float[N][Cin][L]
// kfuse: in  weight float[Cin][Cout][K]
// kfuse: out y      float[N][Cout][(L - 1) * S - 2 * P + dil * (K - 1) + 1]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: assume S >= 1 && dil >= 1 && P >= 0 && K >= 1
// kfuse: assume (L - 1) * S - 2 * P + dil * (K - 1) + 1 >= 1
// kfuse: tune  N=16 Cin=32 Cout=64 L=131072 K=3 S=2 P=1 dil=2
// kfuse: check N=2 Cin=3 Cout=5 L=33 K=3 S=2 P=1 dil=2
// kfuse: check N=1 Cin=4 Cout=3 L=7 K=5 S=3 P=2 dil=1
extern "C" void conv_transposed_1d_asymmetric_input_square_kernel_padded_strided_dilated(
    const float* x, const float* weight, float* y, int N, int Cin, int Cout, int L, int K, int S,
    int P, int dil, cudaStream_t stream) {
  const int Lout = (L - 1) * S - 2 * P + dil * (K - 1) + 1;
  const long total = (long)N * Cout * Lout;
  conv_transpose1d_gather<<<(unsigned int)((total + 255) / 256), 256, 0, stream>>>(
      x, weight, y, N, Cin, Cout, L, Lout, K, S, P, dil);
}
