// Hand-written experiment (not kfuse output): level1/035 group_norm with the mean and the
// variance of each group in one pass (Welford per thread, Chan across threads, 16-byte
// loads), then the normalising kernel over float4s, each float4's channel and group
// computed once (H * W % 4 == 0, checked at run time, else one element at a time).
#include <cuda_runtime.h>

#define BLOCK 1024

__device__ __forceinline__ void merge(float& n, float& mean, float& m2, float n2, float mean2, float m22) {
  if (n2 > 0.0f) {
    const float t = n + n2, d = mean2 - mean, w = n2 / t;
    mean += d * w;
    m2 += m22 + d * d * n * w;
    n = t;
  }
}

__global__ void __launch_bounds__(BLOCK) group_moments(const float* __restrict__ x, float* __restrict__ mean,
                                                     float* __restrict__ rstd, long group_elems, float eps) {
  __shared__ float red[3][32];
  const float* p = x + (size_t)blockIdx.x * group_elems;
  float n = 0.0f, mu = 0.0f, m2 = 0.0f;
  long long j = threadIdx.x;
  if ((((unsigned long long)p) & 15) == 0) {
    const float4* p4 = reinterpret_cast<const float4*>(p);
    const long long n4 = group_elems / 4;
#pragma unroll 4
    for (long long q = threadIdx.x; q < n4; q += BLOCK) {
      const float4 v = p4[q];
      const float c = (v.x + v.y) + (v.z + v.w), cm = c * 0.25f;
      const float dx = v.x - cm, dy = v.y - cm, dz = v.z - cm, dw = v.w - cm;
      merge(n, mu, m2, 4.0f, cm, (dx * dx + dy * dy) + (dz * dz + dw * dw));
    }
    j = 4 * n4 + threadIdx.x;
  }
  for (; j < group_elems; j += BLOCK) {
    const float v = p[j];
    n += 1.0f;
    const float d = v - mu;
    mu += d / n;
    m2 += d * (v - mu);
  }
  for (int o = 16; o > 0; o >>= 1)
    merge(n, mu, m2, __shfl_xor_sync(~0u, n, o), __shfl_xor_sync(~0u, mu, o), __shfl_xor_sync(~0u, m2, o));
  if ((threadIdx.x & 31) == 0) {
    red[0][threadIdx.x >> 5] = n;
    red[1][threadIdx.x >> 5] = mu;
    red[2][threadIdx.x >> 5] = m2;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    n = red[0][threadIdx.x];
    mu = red[1][threadIdx.x];
    m2 = red[2][threadIdx.x];
    for (int o = 16; o > 0; o >>= 1)
      merge(n, mu, m2, __shfl_xor_sync(~0u, n, o), __shfl_xor_sync(~0u, mu, o), __shfl_xor_sync(~0u, m2, o));
    if (threadIdx.x == 0) {
      mean[blockIdx.x] = mu;
      rstd[blockIdx.x] = rsqrtf(m2 / (float)group_elems + eps);
    }
  }
}

__global__ void group_norm_apply4(const float* __restrict__ x, const float* __restrict__ mean,
                                  const float* __restrict__ rstd, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, long total, int C, int G,
                                  long HW) {
  const long long stride = (long long)blockDim.x * gridDim.x;
  const unsigned long long a = (unsigned long long)x | (unsigned long long)y;
  const long long n4 = (HW % 4 == 0 && (a & 15) == 0) ? total / 4 : 0;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += stride) {
    const long long nc = 4 * q / HW;
    const int c = (int)(nc % C);
    const long long n = nc / C;
    const long long stat = n * G + c / (C / G);
    const float mu = mean[stat], rs = rstd[stat], ga = gamma[c], be = beta[c];
    const float4 v = reinterpret_cast<const float4*>(x)[q];
    float4 o;
    o.x = (v.x - mu) * rs * ga + be;
    o.y = (v.y - mu) * rs * ga + be;
    o.z = (v.z - mu) * rs * ga + be;
    o.w = (v.w - mu) * rs * ga + be;
    reinterpret_cast<float4*>(y)[q] = o;
  }
  for (long long i = 4 * n4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const long nc = i / HW;
    const int c = (int)(nc % C);
    const long n = nc / C;
    const long stat = n * G + c / (C / G);
    y[i] = (x[i] - mean[stat]) * rstd[stat] * gamma[c] + beta[c];
  }
}

extern "C" void group_norm(const float* x, const float* weight, const float* bias, float* y, int N,
                           int C, int G, int H, int W, float eps, cudaStream_t stream) {
  const long HW = (long)H * W;
  const long group_elems = (long)(C / G) * HW;
  const long total = (long)N * C * HW;
  float* stats;
  cudaMallocAsync(&stats, sizeof(float) * 2 * N * G, stream);
  group_moments<<<N * G, BLOCK, 0, stream>>>(x, stats, stats + N * G, group_elems, eps);
  group_norm_apply4<<<132 * 16, 256, 0, stream>>>(x, stats, stats + N * G, weight, bias, y, total, C, G, HW);
  cudaFreeAsync(stats, stream);
}
