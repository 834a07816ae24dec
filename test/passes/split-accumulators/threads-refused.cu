// Each output's loop stays with one thread (four accumulators, the launch as written) when
// the kernel reads threadIdx.y (the y threads would differ), when the block is a dim3
// variable the entry assigns after declaring it (its size is not known), when the block
// is two-dimensional, or when a declaration after the guard reads the accumulator (thread
// y = 0 computes it again after the loop, when the accumulator holds its part).
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant split-accumulators(ways=4)@refused#0+split-accumulators(ways=4)@refused#1+split-accumulators(ways=4)@refused#2+split-accumulators(ways=4)@refused#3
// CHECK-NOT: {{^ *}}__syncthreads();
// CHECK: col_sum_y_split<<<g, 128, 0, stream>>>
// CHECK: col_sum_split<<<g, blk, 0, stream>>>
// CHECK: col_sum_split_2<<<g, dim3(64, 2), 0, stream>>>
// CHECK: offset_sum_split<<<g, 128, 0, stream>>>
#include <cuda_runtime.h>

__global__ void col_sum_y(const float* x, float* out, int K, int C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + threadIdx.y;
  if (j >= C) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += x[(size_t)k * C + j];
  out[j] = s;
}

__global__ void col_sum(const float* x, float* out, int K, int C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= C) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += x[(size_t)k * C + j];
  out[j] = s;
}

__global__ void offset_sum(const float* x, float* out, int K, int C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 1.0f;
  if (j >= C) return;
  const float s0 = s;
  for (int k = 0; k < K; ++k) s += x[(size_t)k * C + j];
  out[j] = s - s0;
}

// kfuse: in  x  float[K][C]
// kfuse: out a  float[C]
// kfuse: out b  float[C]
// kfuse: out c  float[C]
// kfuse: out d  float[C]
// kfuse: tune K=64 C=1000
extern "C" void refused(const float* x, float* a, float* b, float* c, float* d, int K, int C,
                        cudaStream_t stream) {
  const int g = (C + 127) / 128;
  col_sum_y<<<g, 128, 0, stream>>>(x, a, K, C);
  dim3 blk(64);
  blk.x = 128;
  col_sum<<<g, blk, 0, stream>>>(x, b, K, C);
  col_sum<<<g, dim3(64, 2), 0, stream>>>(x, c, K, C);
  offset_sum<<<g, 128, 0, stream>>>(x, d, K, C);
}
