// A group norm in one kernel, its block sums through a __device__ helper and its third
// loop the normalisation: the helper calls and the third loop stay as written (the pass
// needs to know nothing of how the block combines its threads' values); only the second
// loop goes. The variance's term reaches the row through a pointer local, and the
// deviation is written (x - mean) * (x - mean) without a declaration.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=one-pass-moments --emit=transformed -R -o %t.cu 2>&1 | count 0
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: __global__ void group_norm_one_pass(
// CHECK: float kf_n1 = 0.0f, kf_mean1 = 0.0f, kf_m21 = 0.0f;
// CHECK: const long long j = (long long)(kf_j + 1 * (long long)(blockDim.x));
// CHECK-NEXT: kf_x1 = g[j];
// CHECK: const float mean = block_sum(s, sh) / (float)len;
// CHECK-NEXT: float q = 0.f;
// CHECK-NEXT: { // kfuse one-pass-moments: the loop's sum of squared deviations, from this thread's moments
// CHECK-NEXT: const float kf_mu = mean;
// CHECK: const float var = block_sum(q, sh) / (float)len;
// CHECK: for (long long j = threadIdx.x; j < len; j += blockDim.x) {
// CHECK-NEXT: out[(long long)blockIdx.x * len + j] = (g[j] - mean) * rstd;
#include <cuda_runtime.h>

__device__ float block_sum(float v, float* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  float r = sh[0];
  __syncthreads();
  return r;
}

__global__ void group_norm(const float* __restrict__ in, float* __restrict__ out, long long len) {
  __shared__ float sh[512];
  const float* g = in + (long long)blockIdx.x * len;
  float s = 0.f;
  for (long long j = threadIdx.x; j < len; j += blockDim.x) s += g[j];
  const float mean = block_sum(s, sh) / (float)len;
  float q = 0.f;
  for (long long j = threadIdx.x; j < len; j += blockDim.x) q += (g[j] - mean) * (g[j] - mean);
  const float var = block_sum(q, sh) / (float)len;
  const float rstd = rsqrtf(var + 1e-5f);
  for (long long j = threadIdx.x; j < len; j += blockDim.x) out[(long long)blockIdx.x * len + j] = (g[j] - mean) * rstd;
}

// kfuse: in  x float[G][L]
// kfuse: out y float[G][L]
// kfuse: tune G=32 L=8192
extern "C" void gn(const float* x, float* y, int G, int L, cudaStream_t stream) {
  group_norm<<<G, 512, 0, stream>>>(x, y, L);
}
