// KernelBench level 2, problem 21: Conv2d_Add_Scale_Sigmoid_GroupNorm
//   y = group_norm(sigmoid((conv2d(x) + bias[C,1,1]) * scale[C,1,1]), G, gamma, beta)
#include <cuda_runtime.h>

constexpr int K = 3;
constexpr int GN_THREADS = 512;
constexpr float GN_EPS = 1e-5f;

__global__ void conv2d_nchw(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ b, float* __restrict__ y,
                            int N, int CI, int H, int W, int CO) {
  const int OH = H - K + 1, OW = W - K + 1;
  const int64_t total = (int64_t)N * CO * OH * OW;
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int ow = i % OW;
  const int oh = (i / OW) % OH;
  const int co = (i / ((int64_t)OW * OH)) % CO;
  const int n = i / ((int64_t)OW * OH * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci)
    for (int kh = 0; kh < K; ++kh)
      for (int kw = 0; kw < K; ++kw)
        acc += x[(((int64_t)n * CI + ci) * H + oh + kh) * W + ow + kw] *
               w[((co * CI + ci) * K + kh) * K + kw];
  y[i] = acc;
}

__global__ void add_bias_c(const float* __restrict__ in, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int HW, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[(i / HW) % C];
}

__global__ void mul_scale_c(const float* __restrict__ in, const float* __restrict__ scale,
                            float* __restrict__ out, int C, int HW, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale[(i / HW) % C];
}

__global__ void sigmoid_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f / (1.0f + expf(-in[i]));
}

__device__ float block_sum(float v, float* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = GN_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

// One block per (n, g); a group is C/G consecutive channels, i.e. a contiguous slab.
__global__ void group_norm_kernel(const float* __restrict__ in, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ out,
                                  int C, int G, int HW) {
  __shared__ float sh[GN_THREADS];
  const int cpg = C / G;
  const int64_t len = (int64_t)cpg * HW;
  const int64_t base = (int64_t)blockIdx.x * len;
  const int g = blockIdx.x % G;
  float s = 0.f;
  for (int64_t j = threadIdx.x; j < len; j += GN_THREADS) s += in[base + j];
  const float mean = block_sum(s, sh) / (float)len;
  float q = 0.f;
  for (int64_t j = threadIdx.x; j < len; j += GN_THREADS) {
    const float d = in[base + j] - mean;
    q += d * d;
  }
  const float var = block_sum(q, sh) / (float)len;
  const float rstd = rsqrtf(var + GN_EPS);
  for (int64_t j = threadIdx.x; j < len; j += GN_THREADS) {
    const int c = g * cpg + (int)(j / HW);
    out[base + j] = (in[base + j] - mean) * rstd * gamma[c] + beta[c];
  }
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  conv_w float[CO][CI][3][3]
// kfuse: in  conv_b float[CO]
// kfuse: in  bias   float[CO][1][1]
// kfuse: in  scale  float[CO][1][1]
// kfuse: in  gamma  float[CO]
// kfuse: in  beta   float[CO]
// kfuse: out y      float[N][CO][H - 2][W - 2]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.1,0.1)
// kfuse: init conv_b uniform(-0.1,0.1)
// kfuse: init bias   uniform(-0.5,0.5)
// kfuse: init scale  uniform(0.5,2)
// kfuse: init gamma  uniform(0.5,1.5)
// kfuse: init beta   uniform(-0.5,0.5)
// kfuse: assume H >= 3 && W >= 3
// kfuse: assume CO % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 CI=8 H=256 W=256 CO=32 G=8
// kfuse: check N=3 CI=3 H=11 W=13 CO=12 G=4
// kfuse: check N=2 CI=5 H=7 W=7 CO=9 G=3
extern "C" void conv2d_add_scale_sigmoid_group_norm(
    const float* x, const float* conv_w, const float* conv_b, const float* bias,
    const float* scale, const float* gamma, const float* beta, float* y,
    int N, int CI, int H, int W, int CO, int G, cudaStream_t stream) {
  const int HW = (H - 2) * (W - 2);
  const int64_t n = (int64_t)N * CO * HW;
  const int threads = 256;
  const unsigned blocks = (unsigned)((n + threads - 1) / threads);
  float *a, *b;
  cudaMallocAsync(&a, sizeof(float) * n, stream);
  cudaMallocAsync(&b, sizeof(float) * n, stream);
  conv2d_nchw<<<blocks, threads, 0, stream>>>(x, conv_w, conv_b, a, N, CI, H, W, CO);
  add_bias_c<<<blocks, threads, 0, stream>>>(a, bias, b, CO, HW, n);
  mul_scale_c<<<blocks, threads, 0, stream>>>(b, scale, a, CO, HW, n);
  sigmoid_kernel<<<blocks, threads, 0, stream>>>(a, b, n);
  group_norm_kernel<<<N * G, GN_THREADS, 0, stream>>>(b, gamma, beta, y, CO, G, HW);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(b, stream);
}
