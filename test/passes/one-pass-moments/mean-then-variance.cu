// A block's mean and then the squared deviations from it, two loops over the row in one
// kernel (a layer norm's statistics): the first loop keeps, beside its sum (summed as
// before, so the mean is the reference's), the thread's count, mean and squared
// deviations (Welford, four terms at a time merged by Chan's formula); the second loop
// becomes m2 + n (mean - mu)^2 of the same thread. The trees, the shared broadcast of mu
// and the stores stay as written. The output compiles.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=one-pass-moments --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: // kfuse one-pass-moments of moments (line {{[0-9]+}}): 1 variance from moments kept in the first pass
// CHECK: static __device__ __forceinline__ void moments_one_pass_merge(float& n, float& mean, float& m2, float n2, float mean2,
// CHECK: __global__ void moments_one_pass(const float *x, float *mean, float *rstd, int M) {
// CHECK: float kf_n1 = 0.0f, kf_mean1 = 0.0f, kf_m21 = 0.0f;
// CHECK: long long kf_j = threadIdx.x;
// CHECK-NEXT: for (; kf_j + 3 * (long long)(256) < (long long)(M); kf_j += 4 * (long long)(256)) {
// CHECK: const int i = (int)(kf_j + 3 * (long long)(256));
// CHECK-NEXT: kf_x3 = row[i];
// CHECK: s += kf_x0;
// CHECK-NEXT: s += kf_x1;
// CHECK-NEXT: s += kf_x2;
// CHECK-NEXT: s += kf_x3;
// CHECK: moments_one_pass_merge(kf_n1, kf_mean1, kf_m21, 4.0f, kf_cm,
// CHECK: for (; kf_j < (long long)(M); kf_j += (long long)(256)) {
// CHECK: kf_mean1 += kf_d / kf_n1;
// CHECK: mu_s = red[0] / M;
// CHECK: const float mu = mu_s;
// CHECK-NEXT: float q = 0.0f;
// CHECK-NEXT: { // kfuse one-pass-moments: the loop's sum of squared deviations, from this thread's moments
// CHECK-NEXT: const float kf_mu = mu;
// CHECK-NEXT: q += kf_m21 + kf_n1 * (kf_mean1 - kf_mu) * (kf_mean1 - kf_mu);
// CHECK-NEXT: }
// CHECK-NEXT: red[threadIdx.x] = q;
// CHECK-LABEL: {{^}}extern "C" void layernorm
// CHECK: moments_one_pass<<<N, THREADS, 0, stream>>>(x, mean, rstd, M);
#include <cuda_runtime.h>

#define THREADS 256

__global__ void moments(const float* x, float* mean, float* rstd, int M) {
  __shared__ float red[THREADS];
  __shared__ float mu_s;
  const float* row = x + (size_t)blockIdx.x * M;
  float s = 0.0f;
  for (int i = threadIdx.x; i < M; i += THREADS) s += row[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) mu_s = red[0] / M;
  __syncthreads();
  const float mu = mu_s;
  float q = 0.0f;
  for (int i = threadIdx.x; i < M; i += THREADS) {
    const float d = row[i] - mu;
    q += d * d;
  }
  red[threadIdx.x] = q;
  __syncthreads();
  for (int k = THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = rsqrtf(red[0] / M + 1e-5f);
  }
}

__global__ void normalize(const float* x, const float* mean, const float* rstd, float* y, int M) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = blockIdx.y;
  if (i < M) y[(size_t)n * M + i] = (x[(size_t)n * M + i] - mean[n]) * rstd[n];
}

// kfuse: in  x float[N][M]
// kfuse: out y float[N][M]
// kfuse: tune N=64 M=4096
extern "C" void layernorm(const float* x, float* y, int N, int M, cudaStream_t stream) {
  float *mean, *rstd;
  cudaMallocAsync(&mean, sizeof(float) * N, stream);
  cudaMallocAsync(&rstd, sizeof(float) * N, stream);
  moments<<<N, THREADS, 0, stream>>>(x, mean, rstd, M);
  dim3 grid((M + 255) / 256, N);
  normalize<<<grid, 256, 0, stream>>>(x, mean, rstd, y, M);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
}
