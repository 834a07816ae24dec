// KernelBench level 1, problem 35: GroupNorm(num_groups, num_channels), affine.
// One block per (n, group) computes mean and rstd (two passes over the group inside the
// block), then an elementwise kernel applies normalization and the per-channel affine.
#include <cuda_runtime.h>

#define GN_THREADS 1024

__device__ float block_sum(float v, float* shm) {
  shm[threadIdx.x] = v;
  __syncthreads();
  for (int s = GN_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shm[threadIdx.x] += shm[threadIdx.x + s];
    __syncthreads();
  }
  float r = shm[0];
  __syncthreads();
  return r;
}

__global__ void group_stats(const float* __restrict__ x, float* __restrict__ mean,
                            float* __restrict__ rstd, long group_elems, float eps) {
  __shared__ float shm[GN_THREADS];
  const float* g = x + (size_t)blockIdx.x * group_elems;
  float s = 0.f;
  for (long i = threadIdx.x; i < group_elems; i += GN_THREADS) s += g[i];
  const float mu = block_sum(s, shm) / (float)group_elems;
  float q = 0.f;
  for (long i = threadIdx.x; i < group_elems; i += GN_THREADS) {
    float d = g[i] - mu;
    q += d * d;
  }
  const float var = block_sum(q, shm) / (float)group_elems;
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = rsqrtf(var + eps);
  }
}

__global__ void group_norm_apply(const float* __restrict__ x, const float* __restrict__ mean,
                                 const float* __restrict__ rstd, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y, long total,
                                 int C, int G, long HW) {
  const long stride = (long)blockDim.x * gridDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const long nc = i / HW;
    const int c = (int)(nc % C);
    const long n = nc / C;
    const long stat = n * G + c / (C / G);
    y[i] = (x[i] - mean[stat]) * rstd[stat] * gamma[c] + beta[c];
  }
}

// kfuse: in  x      float[N][C][H][W]
// kfuse: in  weight float[C]
// kfuse: in  bias   float[C]
// kfuse: out y      float[N][C][H][W]
// kfuse: init x uniform(0,1)
// kfuse: init weight uniform(0.5,1.5)
// kfuse: init bias uniform(-0.5,0.5)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume C % G == 0
// kfuse: tune  N=112 C=64 G=8 H=512 W=512 eps=1e-5
// kfuse: check N=3 C=6 G=3 H=17 W=33 eps=1e-5
// kfuse: check N=2 C=5 G=5 H=7 W=3 eps=1e-5
// kfuse: check N=1 C=8 G=1 H=9 W=13 eps=1e-5
extern "C" void group_norm(const float* x, const float* weight, const float* bias, float* y, int N,
                           int C, int G, int H, int W, float eps, cudaStream_t stream) {
  const long HW = (long)H * W;
  const long group_elems = (long)(C / G) * HW;
  const long total = (long)N * C * HW;
  float* stats;
  cudaMallocAsync(&stats, sizeof(float) * 2 * N * G, stream);
  float* mean = stats;
  float* rstd = stats + N * G;
  group_stats<<<N * G, GN_THREADS, 0, stream>>>(x, mean, rstd, group_elems, eps);
  group_norm_apply<<<132 * 16, 256, 0, stream>>>(x, mean, rstd, weight, bias, y, total, C, G, HW);
  cudaFreeAsync(stats, stream);
}
