// The mean over dim 1 is applied at another position than the thread computed it for
// (the broadcast reads rms[n * S + (S - 1 - s)]: a flipped column), so the statistic in a
// thread's register is not the one its elements need: nothing changes, and -R says why.
// RUN: %kfuse %s --passes=reduce-apply --emit=transformed -R -o %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
// CHECK: remark: not fused: 'mean_dim1' the launch that applies its statistic reads it at another index than the thread stores it at [-Rpass-missed=reduce-apply]
#include <cuda_runtime.h>

__global__ void mean_dim1(const float* __restrict__ in, float* __restrict__ out, int C, int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += in[((size_t)n * C + c) * S + s];
  out[(size_t)n * S + s] = acc / C;
}

__global__ void sub_flipped(const float* __restrict__ x, const float* __restrict__ m, float* __restrict__ y, int C,
                            int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int nc = blockIdx.y;
  if (s >= S) return;
  size_t idx = (size_t)nc * S + s;
  y[idx] = x[idx] - m[(size_t)(nc / C) * S + (S - 1 - s)];
}

// kfuse: in  x float[N][C][S]
// kfuse: out y float[N][C][S]
// kfuse: tune N=4 C=16 S=1024
extern "C" void centre(const float* x, float* y, int N, int C, int S, cudaStream_t stream) {
  float* m;
  cudaMallocAsync(&m, (size_t)N * S * sizeof(float), stream);
  mean_dim1<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(x, m, C, S);
  sub_flipped<<<dim3((S + 255) / 256, N * C), 256, 0, stream>>>(x, m, y, C, S);
  cudaFreeAsync(m, stream);
}
