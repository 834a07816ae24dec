// Block kernels whose row is not cached, each with its reason: a row read at a neighbour
// (another thread's element: the row reversed), a loop over the row with a branch inside, a loop whose step
// is not the block's size, loops of different bounds, one pass over the row, a grid of two
// dimensions (blocks (x, y) would share a row), a launch with dynamic shared memory.
// RUN: %kfuse %s -R --passes=row-cache --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: not grep -q "^// kfuse row-cache of" %t.cu
// CHECK: refused.cu:[[@LINE+66]]:3: remark: not cached: 'neighbour' reads the row at other than its element [-Rpass-missed=row-cache]
// CHECK-NEXT: remark: not cached: 'branchy' touches the row in a loop with branches or loops inside
// CHECK-NEXT: remark: not cached: 'strided' touches the row in a loop whose step is not the block's size
// CHECK-NEXT: remark: not cached: 'two_bounds' touches the row in loops of different bounds
// CHECK-NEXT: remark: not cached: 'once' passes over its row once
// CHECK-NEXT: remark: not cached: 'scale' has a grid of more than one dimension
// CHECK-NEXT: remark: not cached: 'scale' is launched with dynamic shared memory
#include <cuda_runtime.h>

__global__ void neighbour(float* S, int L) {
  __shared__ float red[128];
  float s = 0.f;
  for (int j = threadIdx.x; j < L; j += 128) s += S[blockIdx.x * L + j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int j = threadIdx.x; j < L; j += 128) S[blockIdx.x * L + j] = S[blockIdx.x * L + L - 1 - j] - red[0];
}

__global__ void branchy(float* S, int L) {
  __shared__ float red[128];
  float s = 0.f;
  for (int j = threadIdx.x; j < L; j += 128) s += S[blockIdx.x * L + j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int j = threadIdx.x; j < L; j += 128)
    if (S[blockIdx.x * L + j] > 0.f) S[blockIdx.x * L + j] -= red[0];
}

__global__ void strided(float* S, int L) {
  __shared__ float red[128];
  float s = 0.f;
  for (int j = threadIdx.x; j < L; j += 64) s += S[blockIdx.x * L + j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int j = threadIdx.x; j < L; j += 64) S[blockIdx.x * L + j] -= red[0];
}

__global__ void two_bounds(float* S, int L, int L2) {
  __shared__ float red[128];
  float s = 0.f;
  for (int j = threadIdx.x; j < L; j += 128) s += S[blockIdx.x * L + j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int j = threadIdx.x; j < L2; j += 128) S[blockIdx.x * L + j] -= red[0];
}

__global__ void once(float* S, int L) {
  __shared__ float red[128];
  red[threadIdx.x] = 1.f;
  __syncthreads();
  for (int j = threadIdx.x; j < L; j += 128) S[blockIdx.x * L + j] *= red[0];
}

__global__ void scale(float* S, int L) {
  __shared__ float red[128];
  float s = 0.f;
  for (int j = threadIdx.x; j < L; j += 128) s += S[blockIdx.x * L + j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int j = threadIdx.x; j < L; j += 128) S[blockIdx.x * L + j] /= red[0];
}

// kfuse: inout a float[R][L]
// kfuse: tune  R=1024 L=4096
// kfuse: check R=3 L=300
extern "C" void refused(float* a, int R, int L, cudaStream_t stream) {
  neighbour<<<R, 128, 0, stream>>>(a, L);
  branchy<<<R, 128, 0, stream>>>(a, L);
  strided<<<R, 128, 0, stream>>>(a, L);
  two_bounds<<<R, 128, 0, stream>>>(a, L, L - 1);
  once<<<R, 128, 0, stream>>>(a, L);
  scale<<<dim3(R, 2), 128, 0, stream>>>(a, L);
  scale<<<R, 128, 64, stream>>>(a, L);
}
