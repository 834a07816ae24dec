// KernelBench level 1, problem 81: ConvTranspose2d(Cin, Cout, K, stride S, padding P,
// dilation dil), no bias, on (N, Cin, H, W). Weight layout (Cin, Cout, K, K).
// Gather form, one thread per output element.
#include <cuda_runtime.h>

__global__ void conv_transpose2d_gather(const float* __restrict__ x, const float* __restrict__ w,
                                        float* __restrict__ y, int Cin, int Cout, int H, int W,
                                        int Ho, int Wo, int K, int S, int P, int dil) {
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y * blockDim.y + threadIdx.y;
  if (oh >= Ho || ow >= Wo) return;
  const int n = blockIdx.z / Cout;
  const int co = blockIdx.z % Cout;
  float acc = 0.0f;
  for (int kh = 0; kh < K; ++kh) {
    const int th = oh + P - kh * dil;
    if (th < 0 || th % S) continue;
    const int ih = th / S;
    if (ih >= H) continue;
    for (int kw = 0; kw < K; ++kw) {
      const int tw = ow + P - kw * dil;
      if (tw < 0 || tw % S) continue;
      const int iw = tw / S;
      if (iw >= W) continue;
      for (int ci = 0; ci < Cin; ++ci) {
        const float xv = x[(((int64_t)n * Cin + ci) * H + ih) * W + iw];
        const float wv = w[(((int64_t)ci * Cout + co) * K + kh) * K + kw];
        acc += xv * wv;
      }
    }
  }
  y[(((int64_t)n * Cout + co) * Ho + oh) * Wo + ow] = acc;
}

// kfuse: in  x      float[N][Cin][H][W]
// kfuse: in  weight float[Cin][Cout][K][K]
// kfuse: out y      float[N][Cout][(H - 1) * S - 2 * P + dil * (K - 1) + 1][(W - 1) * S - 2 * P + dil * (K - 1) + 1]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: assume S >= 1 && P >= 0 && dil >= 1 && K >= 1
// kfuse: assume (H - 1) * S - 2 * P + dil * (K - 1) + 1 >= 1
// kfuse: assume (W - 1) * S - 2 * P + dil * (K - 1) + 1 >= 1
// kfuse: assume N * Cout <= 65535
// kfuse: tune  N=16 Cin=32 Cout=64 H=64 W=128 K=3 S=5 P=1 dil=2
// kfuse: check N=2 Cin=3 Cout=4 H=5 W=7 K=3 S=5 P=1 dil=2
// kfuse: check N=1 Cin=2 Cout=3 H=9 W=4 K=2 S=2 P=0 dil=1
extern "C" void conv_transposed_2d_asymmetric_input_square_kernel_dilated_padded_strided(
    const float* x, const float* weight, float* y, int N, int Cin, int Cout, int H, int W, int K,
    int S, int P, int dil, cudaStream_t stream) {
  const int Ho = (H - 1) * S - 2 * P + dil * (K - 1) + 1;
  const int Wo = (W - 1) * S - 2 * P + dil * (K - 1) + 1;
  const dim3 block(32, 8);
  const dim3 grid((Wo + 31) / 32, (Ho + 7) / 8, N * Cout);
  conv_transpose2d_gather<<<grid, block, 0, stream>>>(x, weight, y, Cin, Cout, H, W, Ho, Wo, K, S,
                                                      P, dil);
}
