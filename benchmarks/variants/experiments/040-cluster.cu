// Hand-written experiment (not kfuse output): level1/040 layernorm with the mean and the
// variance of each sample in one pass (Welford per thread, Chan across threads), each
// sample's statistics computed by a cluster of 8 blocks (sm_90 thread-block clusters) that
// merge their moments through distributed shared memory, so that 16 samples keep 128 SMs
// busy instead of 16; then the normalising kernel with 16-byte loads and stores.
#include <cuda_runtime.h>

#define LN_EPS 1e-5f
#define SPLIT 8
#define BLOCK 1024

__device__ __forceinline__ void merge(float& n, float& mean, float& m2, float n2, float mean2, float m22) {
  if (n2 > 0.0f) {
    const float t = n + n2, d = mean2 - mean, w = n2 / t;
    mean += d * w;
    m2 += m22 + d * d * n * w;
    n = t;
  }
}

// the cluster's primitives in PTX (sm_90): this block's rank, a barrier of the whole
// cluster (release/acquire: shared-memory writes before it are seen after it), and a load
// of a float from another block's shared memory
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ float cluster_load(const float* p, unsigned rank) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p), r;
  float v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(r) : "memory");
  return v;
}

__global__ void __cluster_dims__(SPLIT, 1, 1) __launch_bounds__(BLOCK)
    layernorm_moments_split(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd,
                            int M) {
  __shared__ float red[3][32];
  const int rank = (int)cluster_rank();
  const long long row = blockIdx.x / SPLIT;
  const float* p = x + row * (long long)M;
  // this block's part of the row: a multiple of 4 elements
  const long long per = (((long long)M + SPLIT - 1) / SPLIT + 3) & ~3ll;
  const long long lo = per * rank < M ? per * rank : M;
  const long long hi = lo + per < M ? lo + per : M;
  float n = 0.0f, mu = 0.0f, m2 = 0.0f;
  long long j = lo + threadIdx.x;
  if ((((unsigned long long)(p + lo)) & 15) == 0) {
    const float4* p4 = reinterpret_cast<const float4*>(p + lo);
    const long long n4 = (hi - lo) / 4;
#pragma unroll 4
    for (long long q = threadIdx.x; q < n4; q += BLOCK) {
      const float4 v = p4[q];
      const float c = (v.x + v.y) + (v.z + v.w), cm = c * 0.25f;
      const float dx = v.x - cm, dy = v.y - cm, dz = v.z - cm, dw = v.w - cm;
      merge(n, mu, m2, 4.0f, cm, (dx * dx + dy * dy) + (dz * dz + dw * dw));
    }
    j = lo + 4 * n4 + threadIdx.x;
  }
  for (; j < hi; j += BLOCK) {
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
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    red[0][0] = n;
    red[1][0] = mu;
    red[2][0] = m2;
  }
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    float tn = 0.0f, tmu = 0.0f, tm2 = 0.0f;
    for (unsigned r = 0; r < SPLIT; r++)
      merge(tn, tmu, tm2, cluster_load(&red[0][0], r), cluster_load(&red[1][0], r), cluster_load(&red[2][0], r));
    // the reference: mu = sum / M, var = sum (x - mu)^2 / M
    mean[row] = tmu;
    rstd[row] = 1.0f / sqrtf(tm2 / M + LN_EPS);
  }
  cluster_sync(); // no block leaves while block 0 may still read its shared memory
}

__global__ void layernorm_apply4(const float* __restrict__ x, const float* __restrict__ mean,
                                 const float* __restrict__ rstd, const float* __restrict__ w,
                                 const float* __restrict__ b, float* __restrict__ y, int M, long long total) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const unsigned long long a = (unsigned long long)x | (unsigned long long)w | (unsigned long long)b | (unsigned long long)y;
  const long long n4 = (M % 4 == 0 && (a & 15) == 0) ? total / 4 : 0;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += stride) {
    const long long row = 4 * q / M;
    const long long col = 4 * q - row * M;
    const float mu = mean[row], rs = rstd[row];
    const float4 v = reinterpret_cast<const float4*>(x)[q];
    const float4 ww = *reinterpret_cast<const float4*>(w + col);
    const float4 bb = *reinterpret_cast<const float4*>(b + col);
    float4 o;
    o.x = (v.x - mu) * rs * ww.x + bb.x;
    o.y = (v.y - mu) * rs * ww.y + bb.y;
    o.z = (v.z - mu) * rs * ww.z + bb.z;
    o.w = (v.w - mu) * rs * ww.w + bb.w;
    reinterpret_cast<float4*>(y)[q] = o;
  }
  for (long long i = 4 * n4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const long long row = i / M, col = i - row * M;
    y[i] = (x[i] - mean[row]) * rstd[row] * w[col] + b[col];
  }
}

extern "C" void layernorm(const float* x, const float* weight, const float* bias, float* y, int N,
                          int C, int H, int W, cudaStream_t stream) {
  const int M = C * H * W;
  float* stats;
  cudaMallocAsync(&stats, 2 * N * sizeof(float), stream);
  layernorm_moments_split<<<N * SPLIT, BLOCK, 0, stream>>>(x, stats, stats + N, M);
  layernorm_apply4<<<132 * 8, 256, 0, stream>>>(x, stats, stats + N, weight, bias, y, M, (long long)N * M);
  cudaFreeAsync(stats, stream);
}
