// Directives in code the preprocessor skips (#if 0) belong to no entry and must not be
// reported as unattached: the entry they annotate is not compiled. (tu_parse asks libclang
// for the detailed preprocessing record, which lists the skipped ranges.)
// RUN: rm -f %t.out
// RUN: %kfuse %s --passes= -o %t.out 2>&1 | FileCheck %s --allow-empty --implicit-check-not=error:
// RUN: cmp %s %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

#if 0
// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale_old(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
#endif
