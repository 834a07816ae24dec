// KernelBench level 2, problem 35: Conv2d_Subtract_HardSwish_MaxPool_Mish
//   y = mish(maxpool2d(hardswish(conv2d(x) - subtract_value), POOL))
#include <cuda_runtime.h>

#define KS 3
#define POOL 2

__device__ __forceinline__ float hardswish(float v) {
  return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
}

__device__ __forceinline__ float mish(float v) {
  return v * tanhf(log1pf(expf(v)));
}

__global__ void conv2d_kernel(const float* __restrict__ in, const float* __restrict__ wt,
                              const float* __restrict__ bias, float* __restrict__ out,
                              int N, int C, int H, int W, int K) {
  int OH = H - KS + 1, OW = W - KS + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * K * OH * OW) {
    int x_ = idx % OW;
    int y_ = idx / OW % OH;
    int k = idx / (OW * OH) % K;
    int n = idx / (OW * OH * K);
    float s = bias[k];
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < KS; ++r)
        for (int t = 0; t < KS; ++t)
          s += in[((n * C + c) * H + y_ + r) * W + x_ + t] * wt[((k * C + c) * KS + r) * KS + t];
    out[idx] = s;
  }
}

__global__ void subtract_kernel(const float* __restrict__ in, float* __restrict__ out, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - v;
}

__global__ void hardswish_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hardswish(in[i]);
}

// MaxPool2d(kernel=POOL, stride=POOL), floor mode.
__global__ void maxpool2d_kernel(const float* __restrict__ in, float* __restrict__ out,
                                 int NC, int H, int W) {
  int PH = H / POOL, PW = W / POOL;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < NC * PH * PW) {
    int pw = idx % PW, ph = idx / PW % PH, nc = idx / (PW * PH);
    const float* p = in + (nc * H + ph * POOL) * W + pw * POOL;
    float m = -INFINITY;
    for (int i = 0; i < POOL; ++i)
      for (int j = 0; j < POOL; ++j) m = fmaxf(m, p[i * W + j]);
    out[idx] = m;
  }
}

__global__ void mish_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mish(in[i]);
}

static inline int blocks_for(int n) { return (n + 255) / 256; }

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  conv_w float[K][C][3][3]
// kfuse: in  conv_b float[K]
// kfuse: out y      float[N][K][(H - 2) / 2][(W - 2) / 2]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.04,0.04)
// kfuse: init conv_b uniform(-0.04,0.04)
// kfuse: assume H >= 4 && W >= 4
// kfuse: tune  N=128 C=64 H=128 W=128 K=128 subtract_value=0.5
// kfuse: check N=3 C=5 H=11 W=12 K=7 subtract_value=0.5
extern "C" void conv2d_subtract_hard_swish_max_pool_mish(const float* x, const float* conv_w,
                                                         const float* conv_b, float* y, int N,
                                                         int C, int H, int W, int K,
                                                         float subtract_value,
                                                         cudaStream_t stream) {
  int OH = H - KS + 1, OW = W - KS + 1;
  int n_conv = N * K * OH * OW;
  int n_pool = N * K * (OH / POOL) * (OW / POOL);
  float *conv_out, *sub_out, *hs_out, *pool_out;
  cudaMallocAsync((void**)&conv_out, n_conv * sizeof(float), stream);
  cudaMallocAsync((void**)&sub_out, n_conv * sizeof(float), stream);
  cudaMallocAsync((void**)&hs_out, n_conv * sizeof(float), stream);
  cudaMallocAsync((void**)&pool_out, n_pool * sizeof(float), stream);
  conv2d_kernel<<<blocks_for(n_conv), 256, 0, stream>>>(x, conv_w, conv_b, conv_out, N, C, H, W, K);
  subtract_kernel<<<blocks_for(n_conv), 256, 0, stream>>>(conv_out, sub_out, subtract_value, n_conv);
  hardswish_kernel<<<blocks_for(n_conv), 256, 0, stream>>>(sub_out, hs_out, n_conv);
  maxpool2d_kernel<<<blocks_for(n_pool), 256, 0, stream>>>(hs_out, pool_out, N * K, OH, OW);
  mish_kernel<<<blocks_for(n_pool), 256, 0, stream>>>(pool_out, y, n_pool);
  cudaFreeAsync(conv_out, stream);
  cudaFreeAsync(sub_out, stream);
  cudaFreeAsync(hs_out, stream);
  cudaFreeAsync(pool_out, stream);
}
