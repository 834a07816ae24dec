// KernelBench level 1, problem 80: Conv2d(Cin, Cout, kernel (5, 9), stride 1, padding (2, 4),
// dilation (2, 3)), no bias, on (N, Cin, H, W). Output: (H - 4) x (W - 16).
#include <cuda_runtime.h>

#define KH 5
#define KW 9
#define PH 2
#define PW 4
#define DH 2
#define DW 3

__global__ void conv2d_dilated(const float* __restrict__ x, const float* __restrict__ w,
                               float* __restrict__ y, int Cin, int Cout, int H, int W, int Ho,
                               int Wo) {
  int ow = blockIdx.x * blockDim.x + threadIdx.x;
  int oh = blockIdx.y * blockDim.y + threadIdx.y;
  int nco = blockIdx.z;
  if (ow < Wo && oh < Ho) {
    int n = nco / Cout;
    int co = nco - n * Cout;
    float sum = 0.0f;
    for (int ci = 0; ci < Cin; ci++) {
      const float* xp = x + ((size_t)n * Cin + ci) * H * W;
      const float* wp = w + ((size_t)co * Cin + ci) * KH * KW;
      for (int i = 0; i < KH; i++) {
        int ih = oh - PH + i * DH;
        if (ih < 0 || ih >= H) continue;
        for (int j = 0; j < KW; j++) {
          int iw = ow - PW + j * DW;
          if (iw >= 0 && iw < W) sum += xp[ih * W + iw] * wp[i * KW + j];
        }
      }
    }
    y[((size_t)nco * Ho + oh) * Wo + ow] = sum;
  }
}

// kfuse: in  x      float[N][Cin][H][W]
// kfuse: in  weight float[Cout][Cin][5][9]
// kfuse: out y      float[N][Cout][H + 2 * 2 - 2 * (5 - 1)][W + 2 * 4 - 3 * (9 - 1)]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.05,0.05)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume H >= 5 && W >= 17
// kfuse: assume N * Cout <= 65535
// kfuse: tune  N=8 Cin=32 Cout=64 H=512 W=512
// kfuse: check N=2 Cin=3 Cout=4 H=17 W=33
// kfuse: check N=1 Cin=5 Cout=2 H=5 W=17
extern "C" void conv_standard_2d_square_input_asymmetric_kernel_dilated_padded(
    const float* x, const float* weight, float* y, int N, int Cin, int Cout, int H, int W,
    cudaStream_t stream) {
  const int Ho = H + 2 * PH - DH * (KH - 1);
  const int Wo = W + 2 * PW - DW * (KW - 1);
  dim3 block(32, 4);
  dim3 grid((Wo + 31) / 32, (Ho + 3) / 4, N * Cout);
  conv2d_dilated<<<grid, block, 0, stream>>>(x, weight, y, Cin, Cout, H, W, Ho, Wo);
}
