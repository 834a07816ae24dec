// KernelBench level 2, problem 75: Gemm_GroupNorm_Min_BiasAdd
//   t = group_norm(linear(x, W, b), G, gamma, beta); m = min(t, dim=1, keepdim)   -> (B, 1)
//   y = m + bias (1, F, 1, 1)   -> broadcast to (1, F, B, 1): y[0][f][r][0] = m[r] + bias[f]
#include <cuda_runtime.h>

#define GEMM_THREADS 256
#define MIN_THREADS 256

__global__ void gemm_nt_bias(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ y, int B, int K,
                             int F) {
  int f = blockIdx.x * GEMM_THREADS + threadIdx.x;
  int r = blockIdx.y;
  if (f < F) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += x[(size_t)r * K + k] * w[(size_t)f * K + k];
    y[(size_t)r * F + f] = s + b[f];
  }
}

// Statistics: one thread per (row, group); writes mean and rstd.
__global__ void gn_stats(const float* __restrict__ y, float* __restrict__ mean,
                         float* __restrict__ rstd, int B, int F, int G) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < B * G) {
    int gs = F / G;
    const float* p = y + (size_t)(t / G) * F + (t % G) * gs;
    float s = 0.0f;
    for (int j = 0; j < gs; ++j) s += p[j];
    float m = s / gs;
    float q = 0.0f;
    for (int j = 0; j < gs; ++j) q += (p[j] - m) * (p[j] - m);
    mean[t] = m;
    rstd[t] = rsqrtf(q / gs + 1e-5f);
  }
}

__global__ void gn_apply(const float* __restrict__ y, const float* __restrict__ mean,
                         const float* __restrict__ rstd, const float* __restrict__ gamma,
                         const float* __restrict__ beta, float* __restrict__ out, int B, int F,
                         int G) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * F) {
    int f = i % F;
    int st = (i / F) * G + f / (F / G);
    out[i] = (y[i] - mean[st]) * rstd[st] * gamma[f] + beta[f];
  }
}

// torch.min(x, dim=1, keepdim=True)[0]: one block per row, shared-memory tree.
__global__ void row_min(const float* __restrict__ in, float* __restrict__ out, int F) {
  __shared__ float sm[MIN_THREADS];
  const float* p = in + (size_t)blockIdx.x * F;
  float m = INFINITY;
  for (int j = threadIdx.x; j < F; j += MIN_THREADS) m = fminf(m, p[j]);
  sm[threadIdx.x] = m;
  __syncthreads();
  for (int s = MIN_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sm[threadIdx.x] = fminf(sm[threadIdx.x], sm[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sm[0];
}

// (B, 1) + (1, F, 1, 1) -> (1, F, B, 1)
__global__ void broadcast_bias_add(const float* __restrict__ m, const float* __restrict__ bias,
                                   float* __restrict__ out, int B, int F) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < F * B) out[i] = m[i % B] + bias[i / B];
}

// kfuse: in  x     float[B][K]
// kfuse: in  w     float[F][K]
// kfuse: in  b     float[F]
// kfuse: in  gamma float[F]
// kfuse: in  beta  float[F]
// kfuse: in  bias  float[1][F][1][1]
// kfuse: out y     float[1][F][B][1]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.01,0.01)
// kfuse: init b     uniform(-0.01,0.01)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: init bias  uniform(-1,1)
// kfuse: assume F % G == 0
// kfuse: assume B <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 K=8192 F=8192 G=512
// kfuse: check B=3 K=77 F=129 G=3
// kfuse: check B=9 K=16 F=48 G=12
extern "C" void gemm_group_norm_min_bias_add(const float* x, const float* w, const float* b,
                                             const float* gamma, const float* beta,
                                             const float* bias, float* y, int B, int K, int F,
                                             int G, cudaStream_t stream) {
  const int n = B * F;
  float *lin, *gn, *mean, *rstd, *mn;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&gn, sizeof(float) * n, stream);
  cudaMallocAsync(&mean, sizeof(float) * B * G, stream);
  cudaMallocAsync(&rstd, sizeof(float) * B * G, stream);
  cudaMallocAsync(&mn, sizeof(float) * B, stream);
  gemm_nt_bias<<<dim3((F + GEMM_THREADS - 1) / GEMM_THREADS, B), GEMM_THREADS, 0, stream>>>(
      x, w, b, lin, B, K, F);
  gn_stats<<<(B * G + 127) / 128, 128, 0, stream>>>(lin, mean, rstd, B, F, G);
  gn_apply<<<(n + 255) / 256, 256, 0, stream>>>(lin, mean, rstd, gamma, beta, gn, B, F, G);
  row_min<<<B, MIN_THREADS, 0, stream>>>(gn, mn, F);
  broadcast_bias_add<<<(n + 255) / 256, 256, 0, stream>>>(mn, bias, y, B, F);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(gn, stream);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
  cudaFreeAsync(mn, stream);
}
