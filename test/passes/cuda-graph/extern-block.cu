// An entry defined inside an `extern "C" { ... }` block stays eager: the wrapper replaces
// the entry's definition by a declaration of an `_eager` twin and a new definition, which
// needs the linkage written on the definition itself. The remark says so, and nothing
// changes.
// RUN: %kfuse %s --passes=cuda-graph --emit=transformed -R -o %t.cu 2>&1 | FileCheck %s
// RUN: cmp %s %t.cu
// CHECK: extern-block.cu:19:6: remark: not captured: 'in_block': its definition is not written `extern "C" ...` on its own (an extern "C" block?) [-Rpass-missed=cuda-graph]
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}

extern "C" {
// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
void in_block(const float* x, float* y, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
}
