// The second loop runs over other elements than the first (from j = 1), so a thread's
// moments of the first loop's terms do not give its sum: nothing changes, and -R says why.
// RUN: %kfuse %s --passes=one-pass-moments --emit=transformed -R -o %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
// CHECK: remark: not fused: 'moments': the loop at line {{[0-9]+}} does not run over the same elements as the first loop (its bounds or step differ, or are not shown the same) [-Rpass-missed=one-pass-moments]
#include <cuda_runtime.h>

__device__ float block_sum(float v, float* sh);

__global__ void moments(const float* x, float* var, int M) {
  __shared__ float sh[256];
  const float* row = x + (size_t)blockIdx.x * M;
  float s = 0.0f;
  for (int i = threadIdx.x; i < M; i += 256) s += row[i];
  const float mu = block_sum(s, sh) / M;
  float q = 0.0f;
  for (int i = threadIdx.x + 1; i < M; i += 256) q += (row[i] - mu) * (row[i] - mu);
  const float v = block_sum(q, sh) / M;
  if (threadIdx.x == 0) var[blockIdx.x] = v;
}

// kfuse: in  x float[N][M]
// kfuse: out y float[N]
// kfuse: tune N=64 M=4096
extern "C" void variance(const float* x, float* y, int N, int M, cudaStream_t stream) {
  moments<<<N, 256, 0, stream>>>(x, y, M);
}
