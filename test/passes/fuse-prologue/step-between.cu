// Steps between the run and its consumer that touch none of the run's buffers (here the
// memset of the accumulator the consumer adds into atomically) stay where they are.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant fuse-prologue@huber#1-#3
// CHECK-LABEL: {{^}}extern "C" void huber(
// CHECK: cudaMemsetAsync(loss, 0, sizeof(float), stream);
// CHECK-NEXT: fused_smooth_l1_sum_atomic<<<64, 256, 0, stream>>>(loss, n, p, t);
#include <cuda_runtime.h>

__global__ void smooth_l1(const float* p, const float* t, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float z = fabsf(p[i] - t[i]);
    out[i] = z < 1.f ? 0.5f * z * z : z - 0.5f;
  }
}

__global__ void sum_atomic(const float* in, float* acc, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
  atomicAdd(acc, s);
}

// kfuse: in  p float[n]
// kfuse: in  t float[n]
// kfuse: out loss float[1]
// kfuse: tune n=65536
extern "C" void huber(const float* p, const float* t, float* loss, int n, cudaStream_t stream) {
  float* e;
  cudaMallocAsync(&e, n * sizeof(float), stream);
  smooth_l1<<<(n + 255) / 256, 256, 0, stream>>>(p, t, e, n);
  cudaMemsetAsync(loss, 0, sizeof(float), stream);
  sum_atomic<<<64, 256, 0, stream>>>(e, loss, n);
  cudaFreeAsync(e, stream);
}
