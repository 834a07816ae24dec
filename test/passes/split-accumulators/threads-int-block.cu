// A block size held in an integer variable never assigned (`int bs = 256;`) is known too;
// the launch names the variable: dim3(bs, 4). The output compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: // kfuse variant split-accumulators(threads=4,ways=4)@int_block#0
// CHECK: col_sum_split<<<(C + bs - 1) / bs, dim3(bs, 4), 0, stream>>>(x, out, K, C);
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void col_sum(const float* x, float* out, int K, int C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= C) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += x[(size_t)k * C + j];
  out[j] = s;
}

// kfuse: in  x   float[K][C]
// kfuse: out out float[C]
// kfuse: tune K=64 C=1000
extern "C" void int_block(const float* x, float* out, int K, int C, cudaStream_t stream) {
  int bs = 256;
  col_sum<<<(C + bs - 1) / bs, bs, 0, stream>>>(x, out, K, C);
}
