// An intermediate the run updates in place (a = relu(a), after the kernel that made a)
// stays, holding what it held before the run: the prologue reads it there, and the run's
// store goes. A ping-pong buffer the run writes but nobody reads afterwards (t) goes too.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: // kfuse variant fuse-prologue@relu_rowsum#3-#6
// CHECK: __device__ __forceinline__ float fused_relu_twice_plus_one_row_sum_a(const float* __restrict__ a, long long kf_i) {
// CHECK: float a_v = fmaxf(a[[[I:i[_0-9]*]]], 0.f);
// CHECK: float t_v = 2.f * a_v;
// CHECK: a_v = t_v + 1.f;
// CHECK-NEXT: return a_v;
// CHECK: // kfuse fuse-prologue of row_sum (line {{[0-9]+}}): loads of a computed by fused_relu_twice_plus_one_row_sum_a; it keeps what it held before the run
// CHECK-NEXT: __global__ void fused_relu_twice_plus_one_row_sum(const float *a, float *m, int D) {
// CHECK: s += fused_relu_twice_plus_one_row_sum_a(a, (long long)(blockIdx.x * D + j));
// CHECK-LABEL: {{^}}extern "C" void relu_rowsum(
// CHECK: cudaMallocAsync(&a,
// CHECK-NOT: cudaMallocAsync(&t,
// CHECK: make<<<(R + 127) / 128, 128, 0, stream>>>(x, a, R, D);
// CHECK-NEXT: fused_relu_twice_plus_one_row_sum<<<R, 1, 0, stream>>>(a, m, D);
#include <cuda_runtime.h>

__global__ void make(const float* x, float* a, int R, int D) { // a loop: no pointwise step
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  for (int j = 0; j < D; ++j) a[r * D + j] = x[r * D + j] - 0.5f;
}

__global__ void relu(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = fmaxf(a[i], 0.f);
}

__global__ void twice(const float* a, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.f * a[i];
}

__global__ void plus_one(const float* t, float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = t[i] + 1.f;
}

__global__ void row_sum(const float* a, float* m, int D) {
  float s = 0.f;
  for (int j = 0; j < D; ++j) s += a[blockIdx.x * D + j];
  m[blockIdx.x] = s;
}

// kfuse: in  x float[R][D]
// kfuse: out m float[R]
// kfuse: tune R=256 D=1024
extern "C" void relu_rowsum(const float* x, float* m, int R, int D, cudaStream_t stream) {
  float *a, *t;
  cudaMallocAsync(&a, R * D * sizeof(float), stream);
  cudaMallocAsync(&t, R * D * sizeof(float), stream);
  make<<<(R + 127) / 128, 128, 0, stream>>>(x, a, R, D);
  relu<<<(R * D + 255) / 256, 256, 0, stream>>>(a, R * D);
  twice<<<(R * D + 255) / 256, 256, 0, stream>>>(a, t, R * D);
  plus_one<<<(R * D + 255) / 256, 256, 0, stream>>>(t, a, R * D);
  row_sum<<<R, 1, 0, stream>>>(a, m, D);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(t, stream);
}
