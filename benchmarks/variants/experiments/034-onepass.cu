// Hand-written experiment (not kfuse output): level1/034 instance_norm with the mean and
// the variance in one pass (sums of x - k and (x - k)^2, k the plane's first element, so
// that the subtraction in var = E[d^2] - E[d]^2 does not cancel), then the reference's
// normalising kernel.
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

__global__ void plane_stats_kernel(const float* __restrict__ x, float* __restrict__ mean,
                                   float* __restrict__ rstd, int HW, float eps) {
  __shared__ float red[32];
  const float* p = x + (size_t)blockIdx.x * HW;
  const float k = p[0];
  float s0 = 0.0f, s1 = 0.0f, q0 = 0.0f, q1 = 0.0f;
  int i = threadIdx.x;
  for (; i + BLOCK < HW; i += 2 * BLOCK) {
    const float d0 = p[i] - k, d1 = p[i + BLOCK] - k;
    s0 += d0;
    q0 += d0 * d0;
    s1 += d1;
    q1 += d1 * d1;
  }
  for (; i < HW; i += BLOCK) {
    const float d = p[i] - k;
    s0 += d;
    q0 += d * d;
  }
  const float s = block_sum(s0 + s1, red);
  __syncthreads();
  const float q = block_sum(q0 + q1, red);
  if (threadIdx.x == 0) {
    const float m = s / HW;
    mean[blockIdx.x] = k + m;
    rstd[blockIdx.x] = rsqrtf(fmaxf(q / HW - m * m, 0.0f) + eps);
  }
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
  plane_stats_kernel<<<planes, BLOCK, 0, stream>>>(x, mean, rstd, HW, eps);
  dim3 grid((HW + 255) / 256, planes);
  instance_norm_apply<<<grid, 256, 0, stream>>>(x, mean, rstd, y, HW);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
