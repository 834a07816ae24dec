// Two entries over one kernel, one of them `deterministic`.
#include <cuda_runtime.h>

__global__ void col_sums(const float* x, float* s, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float acc = 0.f;
  for (int r = 0; r < R; ++r) acc += x[(size_t)r * C + c];
  s[c] = acc;
}

// kfuse: in  x float[R][C]
// kfuse: out s float[C]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=33 C=100
// kfuse: deterministic
extern "C" void sum_cols(const float* x, float* s, int R, int C, cudaStream_t stream) {
  col_sums<<<(C + 255) / 256, 256, 0, stream>>>(x, s, R, C);
}

// kfuse: in  x float[R][C]
// kfuse: out s float[C]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=33 C=100
extern "C" void sum_cols_any(const float* x, float* s, int R, int C, cudaStream_t stream) {
  col_sums<<<(C + 255) / 256, 256, 0, stream>>>(x, s, R, C);
}
