// With split=8 (the pass's parameter; the second variant), each row is computed by a
// cluster of 8 blocks (sm_90): blockIdx.x / 8 is the row, each block-stride loop starts at
// the block's rank (blockIdx.x % 8) and strides over the cluster, and after each shared-
// memory tree the blocks combine their red[0] through distributed shared memory in rank
// order, so that every block then reads the row's value where its tree left it. The launch
// has 8 blocks a row. The variant compiles for sm_90.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: rm -rf %t && mkdir %t
// RUN: %kfuse --bundle %t/b %s --passes=one-pass-moments --max-variants=2
// RUN: %strip-checks %t/b/manifest.txt | FileCheck --check-prefix=MANIFEST %s
// MANIFEST: variant v1 v1.cu one-pass-moments@layernorm#0
// MANIFEST-NEXT: variant v2 v2.cu one-pass-moments(split=8)@layernorm#0
// RUN: %strip-checks %t/b/v2.cu | FileCheck %s
// CHECK: // A cluster of 8 blocks a row (sm_90): each block takes every 8th stride of the row from its
// CHECK: static __device__ __forceinline__ void moments_one_pass_cluster_sync() {
// CHECK: static __device__ __forceinline__ float moments_one_pass_cluster_load(const float* p, unsigned rank) {
// CHECK: __global__ void __cluster_dims__(8, 1, 1) moments_one_pass(const float *x, float *mean, float *rstd, int M) {
// CHECK: const float *row = x + (size_t)(blockIdx.x / 8) * M;
// CHECK: long long kf_j = (threadIdx.x + (blockIdx.x % 8) * 256);
// CHECK: { // kfuse one-pass-moments: the cluster's 8 blocks combine their red[0], in rank order
// CHECK-NEXT: moments_one_pass_cluster_sync();
// CHECK-NEXT: float kf_v = 0.0f;
// CHECK-NEXT: if (threadIdx.x == 0) {
// CHECK-NEXT: kf_v = moments_one_pass_cluster_load(&red[0], 0);
// CHECK-NEXT: for (unsigned kf_r = 1; kf_r < 8; kf_r++)
// CHECK-NEXT: kf_v += moments_one_pass_cluster_load(&red[0], kf_r);
// CHECK: if (threadIdx.x == 0) {
// CHECK-NEXT: mu_s = red[0] / M;
// CHECK: mean[(blockIdx.x / 8)] = mu;
// CHECK: moments_one_pass<<<(N) * 8, 256, 0, stream>>>(x, mean, rstd, M);
// RUN: sh -c 'cd %t/b && %nvcc -Werror all-warnings -shared -Xcompiler -fPIC -o v2.so v2.shim.cu'
#include <cuda_runtime.h>

__global__ void moments(const float* x, float* mean, float* rstd, int M) {
  __shared__ float red[256];
  __shared__ float mu_s;
  const float* row = x + (size_t)blockIdx.x * M;
  float s = 0.0f;
  for (int i = threadIdx.x; i < M; i += 256) s += row[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) mu_s = red[0] / M;
  __syncthreads();
  const float mu = mu_s;
  float q = 0.0f;
  for (int i = threadIdx.x; i < M; i += 256) {
    const float d = row[i] - mu;
    q += d * d;
  }
  red[threadIdx.x] = q;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = rsqrtf(red[0] / M + 1e-5f);
  }
}

// kfuse: in  x float[N][M]
// kfuse: out mean float[N]
// kfuse: out rstd float[N]
// kfuse: tune N=16 M=1048576
extern "C" void layernorm(const float* x, float* mean, float* rstd, int N, int M, cudaStream_t stream) {
  moments<<<N, 256, 0, stream>>>(x, mean, rstd, M);
}
