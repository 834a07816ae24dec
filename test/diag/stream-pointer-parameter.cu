// A pointer to streams is neither the entry's stream nor a buffer of scalars: an error at
// the parameter, once (not also a pointer with no in, out or inout directive).
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
// CHECK: {{.*}}stream-pointer-parameter.cu:[[@LINE+1]]:83: error: parameter 'streams' of entry 'scale' has type 'cudaStream_t *'; entry parameters are device pointers to scalars, integer or floating scalars, or a cudaStream_t
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t* streams) {
  scale_kernel<<<(N + 255) / 256, 256, 0, streams[0]>>>(x, y, N, alpha);
}
