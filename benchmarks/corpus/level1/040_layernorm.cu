// KernelBench level 1, problem 40: LayerNorm over the last three dims (C, H, W) of
// (N, C, H, W), elementwise affine weight and bias of shape (C, H, W).
// Kernel 1: one block per sample computes mean and rstd (two passes, shared-memory tree).
// Kernel 2: elementwise normalize + affine.
#include <cuda_runtime.h>

#define LN_EPS 1e-5f
#define LN_THREADS 1024

__global__ void layernorm_moments(const float* __restrict__ x, float* __restrict__ mean,
                                  float* __restrict__ rstd, int M) {
  __shared__ float red[LN_THREADS];
  __shared__ float mu_s;
  const float* row = x + (size_t)blockIdx.x * M;
  const int t = threadIdx.x;

  float s = 0.0f;
  for (int i = t; i < M; i += LN_THREADS) s += row[i];
  red[t] = s;
  __syncthreads();
  for (int k = LN_THREADS / 2; k > 0; k >>= 1) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) mu_s = red[0] / M;
  __syncthreads();
  const float mu = mu_s;

  float q = 0.0f;
  for (int i = t; i < M; i += LN_THREADS) {
    const float d = row[i] - mu;
    q += d * d;
  }
  red[t] = q;
  __syncthreads();
  for (int k = LN_THREADS / 2; k > 0; k >>= 1) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = 1.0f / sqrtf(red[0] / M + LN_EPS);
  }
}

__global__ void layernorm_apply(const float* __restrict__ x, const float* __restrict__ mean,
                                const float* __restrict__ rstd, const float* __restrict__ w,
                                const float* __restrict__ b, float* __restrict__ y, int M) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = blockIdx.y;
  if (i >= M) return;
  const size_t idx = (size_t)n * M + i;
  y[idx] = (x[idx] - mean[n]) * rstd[n] * w[i] + b[i];
}

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  weight float[C][H][W]
// kfuse: in  bias   float[C][H][W]
// kfuse: out y      float[N][C][H][W]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(0.5,1.5)
// kfuse: init bias uniform(-0.5,0.5)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume N <= 65535
// kfuse: tune  N=16 C=64 H=256 W=256
// kfuse: check N=3 C=5 H=17 W=33
// kfuse: check N=2 C=1 H=1 W=7
extern "C" void layernorm(const float* x, const float* weight, const float* bias, float* y, int N,
                          int C, int H, int W, cudaStream_t stream) {
  const int M = C * H * W;
  float* mean;
  float* rstd;
  cudaMalloc(&mean, N * sizeof(float));
  cudaMalloc(&rstd, N * sizeof(float));
  layernorm_moments<<<N, LN_THREADS, 0, stream>>>(x, mean, rstd, M);
  dim3 grid((M + 255) / 256, N);
  layernorm_apply<<<grid, 256, 0, stream>>>(x, mean, rstd, weight, bias, y, M);
  cudaFree(mean);
  cudaFree(rstd);
}
