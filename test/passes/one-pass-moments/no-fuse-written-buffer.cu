// The terms load from a buffer the kernel writes (in place), so the second loop need not
// load what the first did: nothing changes, and -R says why.
// RUN: %kfuse %s --passes=one-pass-moments --emit=transformed -R -o %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
// CHECK: remark: not fused: 'center': the loop at line {{[0-9]+}} sums terms that load from a buffer the kernel writes, or that call an atomic, warp or barrier function [-Rpass-missed=one-pass-moments]
#include <cuda_runtime.h>

__device__ float block_sum(float v, float* sh);

__global__ void center(float* x, float* var, int M) {
  __shared__ float sh[256];
  float* row = x + (size_t)blockIdx.x * M;
  float s = 0.0f;
  for (int i = threadIdx.x; i < M; i += 256) s += row[i];
  const float mu = block_sum(s, sh) / M;
  float q = 0.0f;
  for (int i = threadIdx.x; i < M; i += 256) q += (row[i] - mu) * (row[i] - mu);
  const float v = block_sum(q, sh) / M;
  for (int i = threadIdx.x; i < M; i += 256) row[i] -= mu;
  if (threadIdx.x == 0) var[blockIdx.x] = v;
}

// kfuse: inout x float[N][M]
// kfuse: out y float[N]
// kfuse: tune N=64 M=4096
extern "C" void variance(float* x, float* y, int N, int M, cudaStream_t stream) {
  center<<<N, 256, 0, stream>>>(x, y, M);
}
