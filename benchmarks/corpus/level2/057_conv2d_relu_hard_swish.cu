// KernelBench level 2, problem 57: Conv2d_ReLU_HardSwish
//   t = relu(conv2d(x)); y = t * clamp((t + 3) / 6, 0, 1)
#include <cuda_runtime.h>

template <int KS>
__global__ void conv2d_valid(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ y,
                             int N, int C, int H, int W, int F) {
  const int OH = H - KS + 1, OW = W - KS + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * F * OH * OW) return;
  int ow = idx % OW;
  int t = idx / OW;
  int oh = t % OH;
  t /= OH;
  int f = t % F;
  int n = t / F;
  float acc = b[f];
#pragma unroll 1
  for (int c = 0; c < C; ++c) {
#pragma unroll
    for (int kh = 0; kh < KS; ++kh)
#pragma unroll
      for (int kw = 0; kw < KS; ++kw)
        acc += x[((n * C + c) * H + oh + kh) * W + ow + kw] * w[((f * C + c) * KS + kh) * KS + kw];
  }
  y[idx] = acc;
}

__global__ void relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  out[i] = v > 0.0f ? v : 0.0f;
}

// HardSwish written out as the model does: x * clamp((x + 3) / 6, 0, 1).
__global__ void hardswish_explicit(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  out[i] = v * fminf(fmaxf((v + 3.0f) / 6.0f, 0.0f), 1.0f);
}

// kfuse: in  x float[N][C][H][W]
// kfuse: in  w float[F][C][3][3]
// kfuse: in  b float[F]
// kfuse: out y float[N][F][H - 2][W - 2]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.1,0.1)
// kfuse: init b uniform(-0.1,0.1)
// kfuse: assume H >= 3 && W >= 3
// kfuse: tune  N=128 C=8 H=128 W=128 F=64
// kfuse: check N=3 C=3 H=10 W=9 F=5
extern "C" void conv2d_relu_hard_swish(const float* x, const float* w, const float* b, float* y,
                                       int N, int C, int H, int W, int F, cudaStream_t stream) {
  const int n = N * F * (H - 2) * (W - 2);
  const int grid = (n + 511) / 512;
  float *conv, *r;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&r, sizeof(float) * n, stream);
  conv2d_valid<3><<<grid, 512, 0, stream>>>(x, w, b, conv, N, C, H, W, F);
  relu<<<grid, 512, 0, stream>>>(conv, r, n);
  hardswish_explicit<<<grid, 512, 0, stream>>>(r, y, n);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(r, stream);
}
