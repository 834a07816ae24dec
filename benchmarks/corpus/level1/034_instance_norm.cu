// KernelBench level 1, problem 34: InstanceNorm2d(num_features), affine=False, no running
// stats: every (n, c) plane normalized by its own mean and biased variance.
// Kernels: plane mean, plane variance (-> rstd), normalize.
#include <cuda_runtime.h>

#define BLOCK 512

__global__ void plane_mean_kernel(const float* __restrict__ x, float* __restrict__ mean, int HW) {
  __shared__ float sdata[BLOCK];
  const float* p = x + (size_t)blockIdx.x * HW;
  float s = 0.0f;
  for (int i = threadIdx.x; i < HW; i += BLOCK) s += p[i];
  sdata[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sdata[threadIdx.x] += sdata[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) mean[blockIdx.x] = sdata[0] / HW;
}

__global__ void plane_rstd_kernel(const float* __restrict__ x, const float* __restrict__ mean,
                                  float* __restrict__ rstd, int HW, float eps) {
  __shared__ float sdata[BLOCK];
  const float* p = x + (size_t)blockIdx.x * HW;
  const float mu = mean[blockIdx.x];
  float s = 0.0f;
  for (int i = threadIdx.x; i < HW; i += BLOCK) {
    const float d = p[i] - mu;
    s += d * d;
  }
  sdata[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sdata[threadIdx.x] += sdata[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(sdata[0] / HW + eps);
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

// kfuse: in  x float[N][C][H][W]
// kfuse: out y float[N][C][H][W]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume N * C <= 65535
// kfuse: tune  N=112 C=64 H=512 W=512 eps=1e-5
// kfuse: check N=3 C=5 H=33 W=17 eps=1e-5
// kfuse: check N=2 C=3 H=7 W=129 eps=1e-3
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
