// A mean over dim 1 that loads the entry's input itself (no producer before it) and a
// subtraction that applies it (no pointwise launch between): the kernel loads x once per
// element, sums it as the reference does, and subtracts down the column; the scratch m
// goes. The output compiles.
// REQUIRES: nvcc
// RUN: %kfuse %s --passes=reduce-apply --emit=transformed -R -o %t.cu 2>&1 | count 0
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: __global__ void __launch_bounds__(256, 3) fused_mean_dim1_sub_mean(const float *__restrict in, int C, int S, float* __restrict__ y) {
// CHECK: kf_col[kf_c] = in[((size_t)blockIdx.y * C + c) * S + (blockIdx.x * blockDim.x + threadIdx.x)];
// CHECK: const float kf_x = kf_col[kf_c];
// CHECK-NEXT: acc += kf_x;
// CHECK: const float kf_stat = acc / C;
// CHECK: float y_v = kf_x - kf_stat;
// CHECK-LABEL: {{^}}extern "C" void centre
// CHECK: fused_mean_dim1_sub_mean<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(x, C, S, y);
#include <cuda_runtime.h>

__global__ void mean_dim1(const float* __restrict__ in, float* __restrict__ out, int C, int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += in[((size_t)n * C + c) * S + s];
  out[(size_t)n * S + s] = acc / C;
}

__global__ void sub_mean(const float* __restrict__ x, const float* __restrict__ m, float* __restrict__ y, int C,
                            int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int nc = blockIdx.y;
  if (s >= S) return;
  size_t idx = (size_t)nc * S + s;
  y[idx] = x[idx] - m[(size_t)(nc / C) * S + s];
}

// kfuse: in  x float[N][C][S]
// kfuse: out y float[N][C][S]
// kfuse: tune N=4 C=16 S=1024
extern "C" void centre(const float* x, float* y, int N, int C, int S, cudaStream_t stream) {
  float* m;
  cudaMallocAsync(&m, (size_t)N * S * sizeof(float), stream);
  mean_dim1<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(x, m, C, S);
  sub_mean<<<dim3((S + 255) / 256, N * C), 256, 0, stream>>>(x, m, y, C, S);
  cudaFreeAsync(m, stream);
}
