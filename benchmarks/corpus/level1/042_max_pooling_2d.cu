// KernelBench level 1, problem 42: MaxPool2d(kernel_size=4, stride=1, padding=1, dilation=1)
// on (N, C, H, W). Hyperparameters are compile-time constants; output is
// ((H + 2*1 - 1*(4-1) - 1)/1 + 1) = H - 1 by W - 1.
#include <cuda_runtime.h>
#include <cfloat>

constexpr int KSIZE = 4;
constexpr int STRIDE = 1;
constexpr int PAD = 1;
constexpr int DIL = 1;

__global__ void max_pool2d_kernel(const float* __restrict__ x, float* __restrict__ y, int H, int W,
                                  int Ho, int Wo) {
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y * blockDim.y + threadIdx.y;
  const int nc = blockIdx.z;
  if (oh >= Ho || ow >= Wo) return;
  const float* plane = x + (size_t)nc * H * W;
  float best = -FLT_MAX;
  for (int kh = 0; kh < KSIZE; ++kh) {
    const int ih = oh * STRIDE - PAD + kh * DIL;
    if (ih < 0 || ih >= H) continue;
    for (int kw = 0; kw < KSIZE; ++kw) {
      const int iw = ow * STRIDE - PAD + kw * DIL;
      if (iw < 0 || iw >= W) continue;
      best = fmaxf(best, plane[ih * W + iw]);
    }
  }
  y[(size_t)nc * Ho * Wo + oh * Wo + ow] = best;
}

// kfuse: in  x float[N][C][H][W]
// kfuse: out y float[N][C][(H + 2 * 1 - 1 * (4 - 1) - 1) / 1 + 1][(W + 2 * 1 - 1 * (4 - 1) - 1) / 1 + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume H >= 2 && W >= 2
// kfuse: assume N * C <= 65535
// kfuse: tune  N=32 C=64 H=512 W=512
// kfuse: check N=3 C=5 H=33 W=17
// kfuse: check N=1 C=2 H=2 W=129
extern "C" void max_pooling_2d(const float* x, float* y, int N, int C, int H, int W,
                               cudaStream_t stream) {
  const int Ho = (H + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
  const int Wo = (W + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
  dim3 block(32, 8);
  dim3 grid((Wo + block.x - 1) / block.x, (Ho + block.y - 1) / block.y, N * C);
  max_pool2d_kernel<<<grid, block, 0, stream>>>(x, y, H, W, Ho, Wo);
}
