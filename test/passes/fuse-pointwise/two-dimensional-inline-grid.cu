// A two-dimensional grid written in the launch, `dim3((S + 255) / 256, N * C)`, has its y
// extent in the second argument (the first child clang gives is the type's name): the
// domain is (N * C) * S, not the x extent times S.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: {{^}}extern "C" void normalize
// CHECK: div_rows_pointwise<<<(unsigned)((((long long)N * (long long)C) * (long long)S) / 1024 + 1 < 1048576 ? (((long long)N * (long long)C) * (long long)S) / 1024 + 1 : 1048576), 256, 0, stream>>>(x, r, y, S, (((long long)N * (long long)C) * (long long)S));
#include <cuda_runtime.h>

__global__ void div_rows(const float* __restrict__ x, const float* __restrict__ r, float* __restrict__ y, int S) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (s >= S) return;
  y[(size_t)row * S + s] = x[(size_t)row * S + s] / r[row];
}

// kfuse: in  x float[N][C][S]
// kfuse: in  r float[N][C]
// kfuse: out y float[N][C][S]
// kfuse: tune N=4 C=8 S=1000
extern "C" void normalize(const float* x, const float* r, float* y, int N, int C, int S, cudaStream_t stream) {
  div_rows<<<dim3((S + 255) / 256, N * C), 256, 0, stream>>>(x, r, y, S);
}
