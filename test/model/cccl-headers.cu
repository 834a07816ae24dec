// A file that includes the CUDA toolkit's cooperative groups parses: since CUDA 13 they
// include libcu++ from include/cccl, which nvcc searches and kfuse now passes to libclang.
// REQUIRES: nvcc
// RUN: %kfuse %s --emit=model -o - | FileCheck %s
// CHECK: kernel scale_block (line {{[0-9]+}})
// CHECK: lifted
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void scale_block(const float* x, float* y, int n) {
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=1024
extern "C" void scale(const float* x, float* y, int n, cudaStream_t stream) {
  scale_block<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
