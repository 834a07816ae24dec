// KernelBench level 1, problem 54: Conv3d(in_channels, out_channels, kernel_size=K), no bias,
// stride 1, padding 0, on (N, Cin, D, H, W).
#include <cuda_runtime.h>

__global__ void conv3d_naive(const float* __restrict__ x, const float* __restrict__ w,
                             float* __restrict__ y, int Cin, int Cout, int D, int H, int W, int K) {
  const int Do = D - K + 1, Ho = H - K + 1, Wo = W - K + 1;
  const int hw = blockIdx.x * blockDim.x + threadIdx.x;  // over Ho * Wo
  const int nco = blockIdx.y;                             // n * Cout + co
  const int od = blockIdx.z;
  if (hw >= Ho * Wo) return;
  const int oh = hw / Wo, ow = hw % Wo;
  const int n = nco / Cout, co = nco % Cout;
  float acc = 0.0f;
  for (int ci = 0; ci < Cin; ++ci) {
    const float* xv = x + ((size_t)n * Cin + ci) * D * H * W;
    const float* wv = w + ((size_t)co * Cin + ci) * K * K * K;
    for (int kd = 0; kd < K; ++kd)
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw)
          acc += xv[((size_t)(od + kd) * H + (oh + kh)) * W + (ow + kw)] *
                 wv[(kd * K + kh) * K + kw];
  }
  y[(((size_t)nco * Do + od) * Ho + oh) * Wo + ow] = acc;
}

// kfuse: in  x      float[N][Cin][D][H][W]
// kfuse: in  weight float[Cout][Cin][K][K][K]
// kfuse: out y      float[N][Cout][D - K + 1][H - K + 1][W - K + 1]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: assume K >= 1 && D >= K && H >= K && W >= K
// kfuse: assume N * Cout <= 65535 && D - K + 1 <= 65535
// kfuse: tune  N=16 Cin=3 Cout=64 D=64 H=64 W=64 K=3
// kfuse: check N=2 Cin=3 Cout=5 D=7 H=9 W=17 K=3
// kfuse: check N=1 Cin=2 Cout=3 D=4 H=5 W=6 K=2
extern "C" void conv_standard_3d_square_input_square_kernel(const float* x, const float* weight,
                                                            float* y, int N, int Cin, int Cout,
                                                            int D, int H, int W, int K,
                                                            cudaStream_t stream) {
  const int Ho = H - K + 1, Wo = W - K + 1, Do = D - K + 1;
  dim3 grid((Ho * Wo + 255) / 256, N * Cout, Do);
  conv3d_naive<<<grid, 256, 0, stream>>>(x, weight, y, Cin, Cout, D, H, W, K);
}
