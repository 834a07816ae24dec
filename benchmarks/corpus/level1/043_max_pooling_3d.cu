// KernelBench level 1, problem 43: MaxPool3d(kernel_size=3, stride=2, padding=1, dilation=3)
// on (N, C, D, H, W); each output extent is (X + 2*1 - 3*(3-1) - 1)/2 + 1.
#include <cuda_runtime.h>
#include <math.h>

#define POOL_K 3
#define POOL_S 2
#define POOL_P 1
#define POOL_DIL 3

__global__ void max_pool3d_kernel(const float* __restrict__ x, float* __restrict__ y, int D, int H,
                                  int W, int Do, int Ho, int Wo, int total) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < total) {
    int ow = idx % Wo;
    int t = idx / Wo;
    int oh = t % Ho;
    t /= Ho;
    int od = t % Do;
    int nc = t / Do;
    const float* vol = x + (size_t)nc * D * H * W;
    float m = -INFINITY;
    for (int kd = 0; kd < POOL_K; ++kd) {
      int id = od * POOL_S - POOL_P + kd * POOL_DIL;
      if (id < 0 || id >= D) continue;
      for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = oh * POOL_S - POOL_P + kh * POOL_DIL;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < POOL_K; ++kw) {
          int iw = ow * POOL_S - POOL_P + kw * POOL_DIL;
          if (iw < 0 || iw >= W) continue;
          m = fmaxf(m, vol[((size_t)id * H + ih) * W + iw]);
        }
      }
    }
    y[idx] = m;
  }
}

// kfuse: in  x float[N][C][D][H][W]
// kfuse: out y float[N][C][(D + 2 - 6 - 1) / 2 + 1][(H + 2 - 6 - 1) / 2 + 1][(W + 2 - 6 - 1) / 2 + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume D >= 5 && H >= 5 && W >= 5
// kfuse: tune  N=16 C=32 D=128 H=128 W=128
// kfuse: check N=2 C=3 D=9 H=11 W=7
// kfuse: check N=1 C=5 D=5 H=6 W=17
extern "C" void max_pooling_3d(const float* x, float* y, int N, int C, int D, int H, int W,
                               cudaStream_t stream) {
  const int Do = (D + 2 * POOL_P - POOL_DIL * (POOL_K - 1) - 1) / POOL_S + 1;
  const int Ho = (H + 2 * POOL_P - POOL_DIL * (POOL_K - 1) - 1) / POOL_S + 1;
  const int Wo = (W + 2 * POOL_P - POOL_DIL * (POOL_K - 1) - 1) / POOL_S + 1;
  const int total = N * C * Do * Ho * Wo;
  max_pool3d_kernel<<<(total + 127) / 128, 128, 0, stream>>>(x, y, D, H, W, Do, Ho, Wo, total);
}
