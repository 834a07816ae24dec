// KernelBench level 1, problem 82: depthwise Conv2d (groups = C, out = C), kernel 3,
// stride 1, padding 0, no bias. Weight (C, 1, 3, 3).
#include <cuda_runtime.h>

constexpr int KSZ = 3;

__global__ void depthwise_conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                 float* __restrict__ y, int C, int H, int W, int Ho, int Wo,
                                 long total) {
  long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int ow = idx % Wo;
  int oh = (idx / Wo) % Ho;
  long nc = idx / ((long)Wo * Ho);
  int c = nc % C;
  const float* xp = x + nc * H * W;
  const float* wp = w + c * KSZ * KSZ;
  float acc = 0.f;
#pragma unroll
  for (int kh = 0; kh < KSZ; ++kh)
#pragma unroll
    for (int kw = 0; kw < KSZ; ++kw) acc += xp[(oh + kh) * W + ow + kw] * wp[kh * KSZ + kw];
  y[idx] = acc;
}

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  weight float[C][1][3][3]
// kfuse: out y      float[N][C][H - 2][W - 2]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(-0.3,0.3)
// kfuse: assume H >= 3 && W >= 3
// kfuse: tune  N=16 C=64 H=512 W=512
// kfuse: check N=2 C=5 H=17 W=33
// kfuse: check N=3 C=1 H=3 W=7
extern "C" void conv_depthwise_2d_square_input_square_kernel(const float* x, const float* weight,
                                                             float* y, int N, int C, int H, int W,
                                                             cudaStream_t stream) {
  const int Ho = H - KSZ + 1;
  const int Wo = W - KSZ + 1;
  const long total = (long)N * C * Ho * Wo;
  depthwise_conv2d<<<(unsigned int)((total + 255) / 256), 256, 0, stream>>>(x, weight, y, C, H, W,
                                                                           Ho, Wo, total);
}
