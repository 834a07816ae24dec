// KernelBench level 2, problem 92: Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp
//   c = conv2d(x); t = hardswish(tanh(group_norm(c))); y = logsumexp_c(c + t, keepdim)
#include <cuda_runtime.h>

constexpr int KS = 3;
constexpr int RT = 256;  // threads of the group-norm reduction blocks

__global__ void conv2d_fwd(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y, int N, int C,
                           int H, int W, int O) {
  const int OH = H - KS + 1, OW = W - KS + 1;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * O * OH * OW) return;
  int ow = i % OW, oh = i / OW % OH, o = i / (OW * OH) % O, n = i / (OW * OH * O);
  float acc = b[o];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < KS; ++kh)
      for (int kw = 0; kw < KS; ++kw)
        acc += x[((n * C + c) * H + oh + kh) * W + ow + kw] * w[((o * C + c) * KS + kh) * KS + kw];
  y[i] = acc;
}

// mean and rstd of each (n, group): block per group, shared-memory tree reduction,
// sum and sum of squares of deviations in two passes.
__global__ void gn_stats(const float* __restrict__ y, float2* __restrict__ stats, int len,
                         float eps) {
  __shared__ float red[RT];
  const float* p = y + (size_t)blockIdx.x * len;
  float acc = 0.f;
  for (int i = threadIdx.x; i < len; i += RT) acc += p[i];
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int s = RT / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float mean = red[0] / len;
  __syncthreads();
  acc = 0.f;
  for (int i = threadIdx.x; i < len; i += RT) {
    const float d = p[i] - mean;
    acc += d * d;
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int s = RT / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) stats[blockIdx.x] = make_float2(mean, rsqrtf(red[0] / len + eps));
}

__global__ void gn_apply(const float* __restrict__ y, const float2* __restrict__ stats,
                         const float* __restrict__ gamma, const float* __restrict__ beta,
                         float* __restrict__ out, int C, int G, int HW, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = i / HW % C;
  const float2 st = stats[i / (HW * (C / G))];
  out[i] = (y[i] - st.x) * st.y * gamma[c] + beta[c];
}

__global__ void tanh_fwd(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tanhf(in[i]);
}

__global__ void hardswish_fwd(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v * fminf(fmaxf(v + 3.f, 0.f), 6.f) * (1.f / 6.f);
  }
}

__global__ void residual_add(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// logsumexp over channels, keepdim: one thread per (n, h, w).
__global__ void logsumexp_channels(const float* __restrict__ in, float* __restrict__ out, int N,
                                   int C, int HW) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * HW) return;
  const float* src = in + (size_t)(i / HW) * C * HW + i % HW;
  float m = -INFINITY;
  for (int c = 0; c < C; ++c) m = fmaxf(m, src[c * HW]);
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(src[c * HW] - m);
  out[i] = m + logf(s);
}

// kfuse: in  x     float[N][C][H][W]
// kfuse: in  w     float[O][C][3][3]
// kfuse: in  b     float[O]
// kfuse: in  gamma float[O]
// kfuse: in  beta  float[O]
// kfuse: out y     float[N][1][H - 2][W - 2]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.1,0.1)
// kfuse: init b     uniform(-0.1,0.1)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.2,0.2)
// kfuse: assume H >= 3 && W >= 3
// kfuse: assume O % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 C=8 H=128 W=128 O=64 G=16 eps=1e-5
// kfuse: check N=3 C=3 H=9 W=13 O=12 G=4 eps=1e-5
// kfuse: check N=2 C=2 H=5 W=6 O=5 G=5 eps=1e-3
extern "C" void conv2d_group_norm_tanh_hard_swish_residual_add_log_sum_exp(
    const float* x, const float* w, const float* b, const float* gamma, const float* beta,
    float* y, int N, int C, int H, int W, int O, int G, float eps, cudaStream_t stream) {
  const int HW = (H - KS + 1) * (W - KS + 1);
  const int n = N * O * HW;
  const int bl = (n + 255) / 256;
  float *conv, *gn, *th, *hs, *sum;
  float2* stats;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&gn, sizeof(float) * n, stream);
  cudaMallocAsync(&th, sizeof(float) * n, stream);
  cudaMallocAsync(&hs, sizeof(float) * n, stream);
  cudaMallocAsync(&sum, sizeof(float) * n, stream);
  cudaMallocAsync(&stats, sizeof(float2) * N * G, stream);
  conv2d_fwd<<<bl, 256, 0, stream>>>(x, w, b, conv, N, C, H, W, O);
  gn_stats<<<N * G, RT, 0, stream>>>(conv, stats, (O / G) * HW, eps);
  gn_apply<<<bl, 256, 0, stream>>>(conv, stats, gamma, beta, gn, O, G, HW, n);
  tanh_fwd<<<bl, 256, 0, stream>>>(gn, th, n);
  hardswish_fwd<<<bl, 256, 0, stream>>>(th, hs, n);
  residual_add<<<bl, 256, 0, stream>>>(conv, hs, sum, n);
  logsumexp_channels<<<(N * HW + 255) / 256, 256, 0, stream>>>(sum, y, N, O, HW);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(gn, stream);
  cudaFreeAsync(th, stream);
  cudaFreeAsync(hs, stream);
  cudaFreeAsync(sum, stream);
  cudaFreeAsync(stats, stream);
}
