// KernelBench level 1, problem 45: AvgPool2d(kernel_size=11) (stride = kernel, padding 0)
// on (N, C, H, W). The HEAD input has 2^32 elements, so all offsets are 64-bit.
#include <cuda_runtime.h>

template <int K>
__global__ void avg_pool2d_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t H,
                                  int64_t W, int64_t Ho, int64_t Wo, int64_t total) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int64_t ow = idx % Wo;
  const int64_t oh = (idx / Wo) % Ho;
  const int64_t nc = idx / (Wo * Ho);
  const float* base = x + nc * H * W + (oh * K) * W + ow * K;
  float acc = 0.0f;
#pragma unroll 1
  for (int kh = 0; kh < K; ++kh) {
    for (int kw = 0; kw < K; ++kw) acc += base[kh * W + kw];
  }
  y[idx] = acc / (float)(K * K);
}

// kfuse: in  x float[N][C][H][W]
// kfuse: out y float[N][C][(H - 11) / 11 + 1][(W - 11) / 11 + 1]
// kfuse: init x uniform(0,1)
// kfuse: assume H >= 11 && W >= 11
// kfuse: tune  N=16 C=64 H=2048 W=2048
// kfuse: check N=2 C=3 H=33 W=25
// kfuse: check N=1 C=1 H=11 W=129
extern "C" void average_pooling_2d(const float* x, float* y, int64_t N, int64_t C, int64_t H,
                                   int64_t W, cudaStream_t stream) {
  constexpr int K = 11;
  const int64_t Ho = (H - K) / K + 1;
  const int64_t Wo = (W - K) / K + 1;
  const int64_t total = N * C * Ho * Wo;
  avg_pool2d_kernel<K><<<(unsigned int)((total + 255) / 256), 256, 0, stream>>>(x, y, H, W, Ho, Wo,
                                                                                total);
}
