// row_softmax and row_sum: the reference of the planted variants
// test/runner/planted/row-softmax-*.cu. Two entries without a stream parameter (their work
// goes to the legacy default stream), one thread per row, as PyTorch-derived reference code
// is written before anyone tunes it.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(const float* x, float* y, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * C;
  float* yr = y + (size_t)r * C;
  float m = -INFINITY;
  for (int c = 0; c < C; ++c) m = fmaxf(m, xr[c]);
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(xr[c] - m);
  for (int c = 0; c < C; ++c) yr[c] = expf(xr[c] - m) / s;
}

__global__ void sum_rows(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += x[(size_t)r * C + c];
  s[r] = acc;
}

// kfuse: in  x float[R][C]
// kfuse: out y float[R][C]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=5 C=333
// kfuse: assume R >= 1 && C >= 1
extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_rows<<<(R + 127) / 128, 128>>>(x, y, R, C);
}

// kfuse: in  x float[R][C]
// kfuse: out s float[R]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=7 C=1000
// kfuse: assume R >= 1 && C >= 1
extern "C" void row_sum(const float* x, float* s, int R, int C) {
  sum_rows<<<(R + 127) / 128, 128>>>(x, s, R, C);
}
