// A mean and the sum of squared deviations from it, two block reductions, become one
// kernel that reads each plane once: merged moments (Welford per thread, Chan across
// threads), the mean stored as the first kernel stores it and the variance as the second
// computes it from sum (x - mean)^2. The second kernel's parameters are its own names for
// the same arguments (mapped to the first's), and its local `inv` is renamed, the first
// having one.
// RUN: %kfuse %s --passes=fuse-row-stats --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse fuse-row-stats of plane_mean and plane_rstd (lines {{[0-9]+}}, {{[0-9]+}})
// CHECK: void fused_plane_mean_plane_rstd_merge(float& n, float& mean, float& m2, float& sum, float n2, float mean2, float m22,
// CHECK: m2 += m22 + kf_d * kf_d * n * kf_w;
// CHECK: __global__ void __launch_bounds__(1024) fused_plane_mean_plane_rstd(const float *x, float *mean, int HW, float *out_rstd, float eps)
// CHECK: const float *p = x + (size_t)blockIdx.x * HW;
// CHECK: const float inv = 1.0f / HW;
// CHECK: const float kf_x = p[i];
// CHECK: kf_mean += kf_d / kf_cnt;
// CHECK: const float kf_r1 = kf_sum * inv;
// CHECK-NEXT: mean[blockIdx.x] = kf_r1;
// CHECK-NEXT: const float kf_q = kf_m2 + kf_cnt * (kf_mean - kf_r1) * (kf_mean - kf_r1);
// CHECK-NEXT: const float inv_2 = 1.0f / HW;
// CHECK-NEXT: out_rstd[blockIdx.x] = rsqrtf(kf_q * inv_2 + eps);
// CHECK-LABEL: {{^}}extern "C" void instance_norm
// CHECK: fused_plane_mean_plane_rstd<<<planes, 1024, 0, stream>>>(x, mean, HW, rstd, eps);
// CHECK-NOT: plane_rstd<<<
#include <cuda_runtime.h>

#define BLOCK 512

__global__ void plane_mean(const float* x, float* mean, int HW) {
  __shared__ float sdata[BLOCK];
  const float* p = x + (size_t)blockIdx.x * HW;
  const float inv = 1.0f / HW;
  float s = 0.0f;
  for (int i = threadIdx.x; i < HW; i += BLOCK) s += p[i];
  sdata[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sdata[threadIdx.x] += sdata[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) mean[blockIdx.x] = sdata[0] * inv;
}

__global__ void plane_rstd(const float* src, const float* mean_in, float* out_rstd, int len, float eps) {
  __shared__ float red[BLOCK];
  const float* row = src + (size_t)blockIdx.x * len;
  const float mu = mean_in[blockIdx.x];
  const float inv = 1.0f / len;
  float acc = 0.0f;
  for (int t = threadIdx.x; t < len; t += BLOCK) {
    const float d = row[t] - mu;
    acc += d * d;
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] = red[threadIdx.x] + red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out_rstd[blockIdx.x] = rsqrtf(red[0] * inv + eps);
}

__global__ void apply(const float* x, const float* mean, const float* rstd, float* y, int HW) {
  const int plane = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < HW) y[(size_t)plane * HW + i] = (x[(size_t)plane * HW + i] - mean[plane]) * rstd[plane];
}

// kfuse: in  x float[planes][HW]
// kfuse: out y float[planes][HW]
// kfuse: tune planes=64 HW=4096 eps=1e-5
extern "C" void instance_norm(const float* x, float* y, int planes, int HW, float eps, cudaStream_t stream) {
  float *mean, *rstd;
  cudaMallocAsync(&mean, sizeof(float) * planes, stream);
  cudaMallocAsync(&rstd, sizeof(float) * planes, stream);
  plane_mean<<<planes, BLOCK, 0, stream>>>(x, mean, HW);
  plane_rstd<<<planes, BLOCK, 0, stream>>>(x, mean, rstd, HW, eps);
  dim3 grid((HW + 255) / 256, planes);
  apply<<<grid, 256, 0, stream>>>(x, mean, rstd, y, HW);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
