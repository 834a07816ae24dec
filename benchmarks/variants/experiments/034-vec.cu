// Hand-written experiment (not kfuse output): level1/034 instance_norm with the
// reference's three kernels, the two plane reductions re-mapped as a pass would: 16-byte
// loads where the plane is aligned (an accumulator per lane), a warp-shuffle block reduction.
#include <cuda_runtime.h>

#define BLOCK 512

__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  return v;
}

__global__ void plane_mean_kernel(const float* __restrict__ x, float* __restrict__ mean, int HW) {
  __shared__ float red[32];
  const float* p = x + (size_t)blockIdx.x * HW;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  int i = threadIdx.x;
  if (((size_t)p & 15) == 0) {
    const int n4 = HW >> 2;
    for (int q = threadIdx.x; q < n4; q += BLOCK) {
      const float4 v = reinterpret_cast<const float4*>(p)[q];
      a0 += v.x;
      a1 += v.y;
      a2 += v.z;
      a3 += v.w;
    }
    i = 4 * n4 + threadIdx.x;
  }
  for (; i < HW; i += BLOCK) a0 += p[i];
  const float s = block_sum((a0 + a1) + (a2 + a3), red);
  if (threadIdx.x == 0) mean[blockIdx.x] = s / HW;
}

__global__ void plane_rstd_kernel(const float* __restrict__ x, const float* __restrict__ mean,
                                  float* __restrict__ rstd, int HW, float eps) {
  __shared__ float red[32];
  const float* p = x + (size_t)blockIdx.x * HW;
  const float mu = mean[blockIdx.x];
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  int i = threadIdx.x;
  if (((size_t)p & 15) == 0) {
    const int n4 = HW >> 2;
    for (int q = threadIdx.x; q < n4; q += BLOCK) {
      const float4 v = reinterpret_cast<const float4*>(p)[q];
      const float d0 = v.x - mu, d1 = v.y - mu, d2 = v.z - mu, d3 = v.w - mu;
      a0 += d0 * d0;
      a1 += d1 * d1;
      a2 += d2 * d2;
      a3 += d3 * d3;
    }
    i = 4 * n4 + threadIdx.x;
  }
  for (; i < HW; i += BLOCK) {
    const float d = p[i] - mu;
    a0 += d * d;
  }
  const float s = block_sum((a0 + a1) + (a2 + a3), red);
  if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(s / HW + eps);
}

__global__ void instance_norm_apply(const float* __restrict__ x, const float* __restrict__ mean,
                                    const float* __restrict__ rstd, float* __restrict__ y,
                                    int HW) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int plane = blockIdx.y;
  if (i < HW) {
    const size_t idx = (size_t)plane * HW + i;
    y[idx] = (x[idx] - mean[plane]) * rstd[plane];
  }
}

extern "C" void instance_norm(const float* x, float* y, int N, int C, int H, int W, float eps,
                              cudaStream_t stream) {
  const int planes = N * C;
  const int HW = H * W;
  float *mean, *rstd;
  cudaMallocAsync(&mean, sizeof(float) * planes, stream);
  cudaMallocAsync(&rstd, sizeof(float) * planes, stream);
  plane_mean_kernel<<<planes, BLOCK, 0, stream>>>(x, mean, HW);
  plane_rstd_kernel<<<planes, BLOCK, 0, stream>>>(x, mean, rstd, HW, eps);
  dim3 grid((HW + 255) / 256, planes);
  instance_norm_apply<<<grid, 256, 0, stream>>>(x, mean, rstd, y, HW);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
