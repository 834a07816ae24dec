// KernelBench level 1, problem 50: Conv2d(3 -> 96, kernel 11, stride 4, padding 2, bias)
// (AlexNet conv1) on (N, 3, 224, 224). Direct convolution, one thread per output element;
// kernel size, stride and padding are template parameters.
#include <cuda_runtime.h>

template <int KS, int STRIDE, int PAD>
__global__ void conv2d_direct(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y, int N, int Cin,
                              int H, int W, int Cout, int Ho, int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int total = N * Cout * Ho * Wo;
  if (idx >= total) return;
  const int ow = idx % Wo;
  const int oh = (idx / Wo) % Ho;
  const int co = (idx / (Wo * Ho)) % Cout;
  const int n = idx / (Wo * Ho * Cout);
  float acc = b[co];
  for (int ci = 0; ci < Cin; ++ci) {
    const float* xp = x + ((size_t)n * Cin + ci) * H * W;
    const float* wp = w + ((size_t)co * Cin + ci) * KS * KS;
    for (int kh = 0; kh < KS; ++kh) {
      const int ih = oh * STRIDE - PAD + kh;
      if (ih < 0 || ih >= H) continue;
      for (int kw = 0; kw < KS; ++kw) {
        const int iw = ow * STRIDE - PAD + kw;
        if (iw < 0 || iw >= W) continue;
        acc += xp[ih * W + iw] * wp[kh * KS + kw];
      }
    }
  }
  y[idx] = acc;
}

// kfuse: in  x      float[N][Cin][H][W]
// kfuse: in  weight float[Cout][Cin][11][11]
// kfuse: in  bias   float[Cout]
// kfuse: out y      float[N][Cout][(H + 2 * 2 - 11) / 4 + 1][(W + 2 * 2 - 11) / 4 + 1]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.05,0.05)
// kfuse: init bias uniform(-0.05,0.05)
// kfuse: assume H >= 7 && W >= 7
// kfuse: tune  N=256 Cin=3 H=224 W=224 Cout=96
// kfuse: check N=2 Cin=3 H=33 W=29 Cout=5
// kfuse: check N=1 Cin=2 H=7 W=15 Cout=3
extern "C" void conv_standard_2d_square_input_square_kernel(const float* x, const float* weight,
                                                            const float* bias, float* y, int N,
                                                            int Cin, int H, int W, int Cout,
                                                            cudaStream_t stream) {
  const int Ho = (H + 2 * 2 - 11) / 4 + 1;
  const int Wo = (W + 2 * 2 - 11) / 4 + 1;
  const int total = N * Cout * Ho * Wo;
  conv2d_direct<11, 4, 2><<<(total + 255) / 256, 256, 0, stream>>>(x, weight, bias, y, N, Cin, H,
                                                                   W, Cout, Ho, Wo);
}
