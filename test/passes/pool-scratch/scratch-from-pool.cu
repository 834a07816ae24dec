// Scratch allocations come from kfuse's pool, which keeps freed memory for the next call:
// cudaMallocAsync becomes kf_scratch_malloc on the same stream; a synchronous cudaMalloc
// freed by cudaFree in the same entry becomes the same pair on the entry's stream; one
// that is never freed there stays as written. The helpers are printed once.
// RUN: %kfuse %s --passes=pool-scratch --emit=transformed -o - | FileCheck %s
// CHECK-COUNT-1: static cudaMemPool_t kf_scratch_pool() {
// CHECK: cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
// CHECK: static cudaError_t kf_scratch_malloc(T** p, size_t bytes, cudaStream_t stream) {
// CHECK-LABEL: {{^}}extern "C" void two_steps
// CHECK: kf_scratch_malloc(&t, sizeof(float) * n, stream);
// CHECK-NEXT: kf_scratch_malloc(&u, sizeof(float) * n, stream);
// CHECK-NEXT: cudaMalloc(&kept, sizeof(float));
// CHECK: cudaFreeAsync(t, stream);
// CHECK-NEXT: cudaFreeAsync(u, stream);
// CHECK-LABEL: {{^}}extern "C" void other
// CHECK-NOT: static cudaMemPool_t kf_scratch_pool
// CHECK: kf_scratch_malloc(&w, sizeof(float) * n, s);
#include <cuda_runtime.h>

__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void reduce_into(const float* x, float* out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i];
  *out = s;
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
extern "C" void two_steps(const float* x, float* y, int n, cudaStream_t stream) {
  float *t, *u, *kept;
  cudaMallocAsync(&t, sizeof(float) * n, stream);
  cudaMalloc(&u, sizeof(float) * n);
  cudaMalloc(&kept, sizeof(float));
  twice<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n);
  reduce_into<<<1, 1, 0, stream>>>(t, kept, n);
  twice<<<(n + 255) / 256, 256, 0, stream>>>(t, u, n);
  twice<<<(n + 255) / 256, 256, 0, stream>>>(u, y, n);
  cudaFreeAsync(t, stream);
  cudaFree(u);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
extern "C" void other(const float* x, float* y, int n, cudaStream_t s) {
  float* w;
  cudaMallocAsync(&w, sizeof(float) * n, s);
  twice<<<(n + 255) / 256, 256, 0, s>>>(x, w, n);
  twice<<<(n + 255) / 256, 256, 0, s>>>(w, y, n);
  cudaFreeAsync(w, s);
}
