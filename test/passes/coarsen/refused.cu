// What keeps a thread to its own block, and why (-R): a local array at the top level (it
// would be one for each u), a return inside a loop (it would end the other u's steps too),
// a loop whose bounds differ per thread or that breaks out of it (no loop to jam), and two
// locals of one name at the top level once a guard's block is read as part of it, a loop's
// variable declared before the loop (it would be one for each u, and loop headers are
// printed as written). A kernel
// with shared memory, one that does not name blockIdx.x, and one without a loop are not the
// pass's and get no remark. The output is the input.
// RUN: %kfuse %s --passes=coarsen -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'local_array' declares an array at its top level [-Rpass-missed=coarsen]
// CHECK: remark: not substituted: 'early_exit' returns inside a loop [-Rpass-missed=coarsen]
// CHECK: remark: not substituted: 'per_thread_bounds' has no loop at its top level to jam (its bounds the same for every thread, no return or break out of it, reading a buffer) [-Rpass-missed=coarsen]
// CHECK: remark: not substituted: 'breaks' has no loop at its top level to jam
// CHECK: remark: not substituted: 'twice' declares two variables of one name [-Rpass-missed=coarsen]
// CHECK: remark: not substituted: 'counter_outside' declares a loop's variable before the loop [-Rpass-missed=coarsen]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void local_array(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float buf[2];
  buf[0] = 0.0f;
  buf[1] = 0.0f;
  for (int k = 0; k < K; ++k) buf[k & 1] += x[(i + k) % n];
  y[i] = buf[0] + buf[1];
}

__global__ void early_exit(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    if (x[k] < 0.0f) return;
    s += x[(i + k) % n];
  }
  y[i] = s;
}

__global__ void per_thread_bounds(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < i % 7; ++k) s += x[k];
  y[i] = s;
}

__global__ void breaks(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    if (s > 4.0f) break;
    s += x[(i + k) % n];
  }
  y[i] = s;
}

__global__ void twice(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = 1.0f;
  if (i < n) {
    float a = 0.0f;
    for (int k = 0; k < K; ++k) a += x[(i + k) % n];
    y[i] = a;
  }
}

__global__ void counter_outside(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  int k;
  for (k = 0; k < K; ++k) s += x[(i + k) % n];
  y[i] = s;
}

__global__ void tiled(const float* x, float* y, int n, int K) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += t[(threadIdx.x + k) % 256];
  if (i < n) y[i] = s;
}

__global__ void no_block_index(const float* x, float* y, int n, int K) {
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += x[k];
  if (threadIdx.x < n) y[threadIdx.x] = s;
}

__global__ void elementwise(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: assume n >= 256 && K >= 1 && K <= n
// kfuse: tune  n=1048576 K=4
// kfuse: check n=1000 K=3
extern "C" void refused(const float* x, float* y, int n, int K, cudaStream_t stream) {
  const int grid = (n + 255) / 256;
  local_array<<<grid, 256, 0, stream>>>(x, y, n, K);
  early_exit<<<grid, 256, 0, stream>>>(x, y, n, K);
  per_thread_bounds<<<grid, 256, 0, stream>>>(x, y, n);
  breaks<<<grid, 256, 0, stream>>>(x, y, n, K);
  twice<<<grid, 256, 0, stream>>>(x, y, n, K);
  counter_outside<<<grid, 256, 0, stream>>>(x, y, n, K);
  tiled<<<grid, 256, 0, stream>>>(x, y, n, K);
  no_block_index<<<1, 256, 0, stream>>>(x, y, n, K);
  elementwise<<<grid, 256, 0, stream>>>(x, y, n);
}
