// KernelBench level 2, problem 85: Conv2d_GroupNorm_Scale_MaxPool_Clamp
//   y = clamp(maxpool2d(group_norm(conv2d(x)) * scale[C,1,1], mk), lo, hi)
// GroupNorm statistics: one block per (n, group), warp shuffles + shared memory.
#include <cuda_runtime.h>

#define KS 3
#define GN_BLOCK 256
#define EPS 1e-5f

__global__ void conv2d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int N, int C, int H, int W, int O) {
  int OH = H - KS + 1, OW = W - KS + 1;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * O * OH * OW) return;
  int ow = i % OW, oh = (i / OW) % OH, o = (i / (OW * OH)) % O, n = i / (OW * OH * O);
  float acc = b[o];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < KS; ++kh)
      for (int kw = 0; kw < KS; ++kw)
        acc += x[((n * C + c) * H + oh + kh) * W + ow + kw] * w[((o * C + c) * KS + kh) * KS + kw];
  y[i] = acc;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__device__ float block_reduce_sum(float v) {
  __shared__ float warp_part[GN_BLOCK / 32];
  __shared__ float total;
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < GN_BLOCK / 32 ? warp_part[threadIdx.x] : 0.0f;
    t = warp_sum(t);
    if (threadIdx.x == 0) total = t;
  }
  __syncthreads();
  float r = total;
  __syncthreads();
  return r;
}

__global__ void groupnorm_stats(const float* __restrict__ y, float* __restrict__ mean,
                                float* __restrict__ rstd, int len) {
  const float* p = y + (size_t)blockIdx.x * len;
  float s = 0.0f;
  for (int i = threadIdx.x; i < len; i += GN_BLOCK) s += p[i];
  float m = block_reduce_sum(s) / len;
  float q = 0.0f;
  for (int i = threadIdx.x; i < len; i += GN_BLOCK) {
    float d = p[i] - m;
    q += d * d;
  }
  float var = block_reduce_sum(q) / len;
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = 1.0f / sqrtf(var + EPS);
  }
}

__global__ void groupnorm_apply(const float* __restrict__ y, const float* __restrict__ mean,
                                const float* __restrict__ rstd, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ out,
                                int C, int G, int HW, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  int c = (i / HW) % C;
  int n = i / (HW * C);
  int ng = n * G + c / (C / G);
  out[i] = (y[i] - mean[ng]) * rstd[ng] * gamma[c] + beta[c];
}

__global__ void scale_channels(const float* __restrict__ in, const float* __restrict__ s,
                               float* __restrict__ out, int C, int HW, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  out[i] = in[i] * s[(i / HW) % C];
}

__global__ void maxpool2d(const float* __restrict__ in, float* __restrict__ out,
                          int NC, int H, int W, int k) {
  int PH = H / k, PW = W / k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= NC * PH * PW) return;
  int pw = i % PW, ph = (i / PW) % PH, nc = i / (PW * PH);
  float m = in[(nc * H + ph * k) * W + pw * k];
  for (int a = 0; a < k; ++a)
    for (int c = 0; c < k; ++c) m = fmaxf(m, in[(nc * H + ph * k + a) * W + pw * k + c]);
  out[i] = m;
}

__global__ void clamp_kernel(const float* __restrict__ in, float* __restrict__ out, float lo,
                             float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = fminf(fmaxf(in[i], lo), hi);
}

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  w      float[O][C][3][3]
// kfuse: in  b      float[O]
// kfuse: in  gamma  float[O]
// kfuse: in  beta   float[O]
// kfuse: in  scale  float[O][1][1]
// kfuse: out y      float[N][O][(H - 2) / mk][(W - 2) / mk]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.1,0.1)
// kfuse: init b     uniform(-0.1,0.1)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.2,0.2)
// kfuse: init scale uniform(0.5,1.5)
// kfuse: assume O % G == 0
// kfuse: assume mk >= 1 && H - 2 >= mk && W - 2 >= mk
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 C=8 H=128 W=128 O=64 G=16 mk=4 clamp_min=0.0 clamp_max=1.0
// kfuse: check N=3 C=3 H=13 W=15 O=12 G=4 mk=4 clamp_min=0.0 clamp_max=1.0
// kfuse: check N=2 C=5 H=9 W=10 O=6 G=3 mk=2 clamp_min=-0.5 clamp_max=0.75
extern "C" void conv2d_group_norm_scale_max_pool_clamp(
    const float* x, const float* w, const float* b, const float* gamma, const float* beta,
    const float* scale, float* y, int N, int C, int H, int W, int O, int G, int mk,
    float clamp_min, float clamp_max, cudaStream_t stream) {
  int OH = H - KS + 1, OW = W - KS + 1, HW = OH * OW;
  int total = N * O * HW;
  int PH = OH / mk, PW = OW / mk;
  int np = N * O * PH * PW;
  float *conv, *normed, *scaled, *pooled, *mean, *rstd;
  cudaMallocAsync(&conv, sizeof(float) * total, stream);
  cudaMallocAsync(&normed, sizeof(float) * total, stream);
  cudaMallocAsync(&scaled, sizeof(float) * total, stream);
  cudaMallocAsync(&pooled, sizeof(float) * np, stream);
  cudaMallocAsync(&mean, sizeof(float) * N * G, stream);
  cudaMallocAsync(&rstd, sizeof(float) * N * G, stream);
  int tb = 256;
  conv2d_kernel<<<(total + tb - 1) / tb, tb, 0, stream>>>(x, w, b, conv, N, C, H, W, O);
  groupnorm_stats<<<N * G, GN_BLOCK, 0, stream>>>(conv, mean, rstd, (O / G) * HW);
  groupnorm_apply<<<(total + tb - 1) / tb, tb, 0, stream>>>(conv, mean, rstd, gamma, beta, normed,
                                                            O, G, HW, total);
  scale_channels<<<(total + tb - 1) / tb, tb, 0, stream>>>(normed, scale, scaled, O, HW, total);
  maxpool2d<<<(np + tb - 1) / tb, tb, 0, stream>>>(scaled, pooled, N * O, OH, OW, mk);
  clamp_kernel<<<(np + tb - 1) / tb, tb, 0, stream>>>(pooled, y, clamp_min, clamp_max, np);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(normed, stream);
  cudaFreeAsync(scaled, stream);
  cudaFreeAsync(pooled, stream);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
