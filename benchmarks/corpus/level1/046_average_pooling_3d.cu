// KernelBench level 1, problem 46: AvgPool3d(kernel_size=3, stride=2, padding=1) on
// (N, C, D, H, W), count_include_pad=True: every window divides by 27.
// The HEAD input has 2^31 elements: size_t offsets, grid-stride loop.
#include <cuda_runtime.h>

#define KS 3
#define ST 2
#define PD 1

__global__ void avg_pool3d_kernel(const float* __restrict__ x, float* __restrict__ y, size_t NC,
                                  int D, int H, int W, int Do, int Ho, int Wo) {
  const size_t total = NC * Do * Ho * Wo;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (size_t)blockDim.x * gridDim.x) {
    size_t r = idx;
    const int ow = (int)(r % Wo);
    r /= Wo;
    const int oh = (int)(r % Ho);
    r /= Ho;
    const int od = (int)(r % Do);
    const size_t nc = r / Do;
    const float* vol = x + nc * (size_t)D * H * W;
    float sum = 0.f;
    for (int kd = 0; kd < KS; ++kd) {
      const int id = od * ST - PD + kd;
      if (id < 0 || id >= D) continue;
      for (int kh = 0; kh < KS; ++kh) {
        const int ih = oh * ST - PD + kh;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < KS; ++kw) {
          const int iw = ow * ST - PD + kw;
          if (iw < 0 || iw >= W) continue;
          sum += vol[((size_t)id * H + ih) * W + iw];
        }
      }
    }
    y[idx] = sum / (float)(KS * KS * KS);
  }
}

// kfuse: in  x float[N][C][D][H][W]
// kfuse: out y float[N][C][(D + 2 - 3) / 2 + 1][(H + 2 - 3) / 2 + 1][(W + 2 - 3) / 2 + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume D >= 3 && H >= 3 && W >= 3
// kfuse: tune  N=16 C=32 D=128 H=128 W=256
// kfuse: check N=2 C=3 D=9 H=7 W=17
// kfuse: check N=1 C=2 D=3 H=4 W=33
extern "C" void average_pooling_3d(const float* x, float* y, int N, int C, int D, int H, int W,
                                   cudaStream_t stream) {
  const int Do = (D + 2 * PD - KS) / ST + 1;
  const int Ho = (H + 2 * PD - KS) / ST + 1;
  const int Wo = (W + 2 * PD - KS) / ST + 1;
  avg_pool3d_kernel<<<132 * 32, 256, 0, stream>>>(x, y, (size_t)N * C, D, H, W, Do, Ho, Wo);
}
