// A pointwise run (d = p - t; s = d * d) feeding a block reduction becomes a __device__
// function evaluated where the reduction loads s: neither d nor s is stored any more, and
// their allocations go. The output compiles with nvcc.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: // kfuse variant fuse-prologue@sse#3-#5
// CHECK-LABEL: // kfuse fuse-prologue: sub (line {{[0-9]+}}), square (line {{[0-9]+}}), computed at each element of s that block_sum (line {{[0-9]+}}) loads
// CHECK-NEXT: __device__ __forceinline__ float fused_sub_square_block_sum_s(const float* __restrict__ p, const float* __restrict__ t, long long kf_i) {
// CHECK-NEXT: const int [[I:i[_0-9]*]] = (int)kf_i;
// CHECK: float d_v = p[[[I]]] - t[[[I]]];
// CHECK: float s_v = d_v * d_v;
// CHECK-NEXT: return s_v;
// CHECK-LABEL: // kfuse fuse-prologue of block_sum (line {{[0-9]+}}): loads of s computed by fused_sub_square_block_sum_s; the buffer is gone
// CHECK-NEXT: __global__ void fused_sub_square_block_sum(float *partial, int n, const float* __restrict__ p, const float* __restrict__ t) {
// CHECK: acc += fused_sub_square_block_sum_s(p, t, (long long)(i));
// CHECK-LABEL: {{^}}extern "C" void sse(
// CHECK-NOT: cudaMallocAsync(&d
// CHECK-NOT: cudaMallocAsync(&s
// CHECK: fused_sub_square_block_sum<<<256, 256, 0, stream>>>(partial, n, p, t);
// CHECK-NEXT: finish<<<1, 256, 0, stream>>>(partial, out);
// CHECK-NOT: cudaFreeAsync(d
#include <cuda_runtime.h>

__global__ void sub(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] - b[i];
}

__global__ void square(const float* a, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * a[i];
}

__global__ void block_sum(const float* in, float* partial, int n) {
  __shared__ float sh[256];
  float acc = 0.f;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * 256) acc += in[i];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

__global__ void finish(const float* partial, float* out) {
  __shared__ float sh[256];
  sh[threadIdx.x] = partial[threadIdx.x];
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sh[0];
}

// kfuse: in  p float[n]
// kfuse: in  t float[n]
// kfuse: out out float[1]
// kfuse: tol rtol=1e-3 atol=1e-3
// kfuse: tune n=1048576
// kfuse: check n=1000
extern "C" void sse(const float* p, const float* t, float* out, int n, cudaStream_t stream) {
  float *d, *s, *partial;
  cudaMallocAsync(&d, n * sizeof(float), stream);
  cudaMallocAsync(&s, n * sizeof(float), stream);
  cudaMallocAsync(&partial, 256 * sizeof(float), stream);
  sub<<<(n + 255) / 256, 256, 0, stream>>>(p, t, d, n);
  square<<<(n + 255) / 256, 256, 0, stream>>>(d, s, n);
  block_sum<<<256, 256, 0, stream>>>(s, partial, n);
  finish<<<1, 256, 0, stream>>>(partial, out);
  cudaFreeAsync(d, stream);
  cudaFreeAsync(s, stream);
  cudaFreeAsync(partial, stream);
}
