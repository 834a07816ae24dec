// Hand-written experiment (not kfuse output): level1/036 rms_norm in one kernel as in
// 036-fused.cu, each thread keeping the channels it loads in registers when there are at
// most 64 of them (the reduction's loop unrolled with a guard), so that x is read once;
// more channels are read again as in 036-fused.cu.
#include <cuda_runtime.h>

#define CACHE 64

__global__ void __launch_bounds__(256) rms_norm_regs(const float* __restrict__ x, float* __restrict__ y, int C, int S,
                                                     float eps) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  const float* p = x + (size_t)n * C * S + s;
  float* q = y + (size_t)n * C * S + s;
  float acc = 0.f;
  if (C <= CACHE) {
    float v[CACHE];
#pragma unroll
    for (int c = 0; c < CACHE; ++c)
      if (c < C) v[c] = p[(size_t)c * S];
#pragma unroll
    for (int c = 0; c < CACHE; ++c)
      if (c < C) acc += v[c] * v[c];
    const float r = sqrtf(acc / C + eps);
#pragma unroll
    for (int c = 0; c < CACHE; ++c)
      if (c < C) q[(size_t)c * S] = v[c] / r;
    return;
  }
  for (int c = 0; c < C; ++c) {
    const float v = p[(size_t)c * S];
    acc += v * v;
  }
  const float r = sqrtf(acc / C + eps);
  for (int c = 0; c < C; ++c) q[(size_t)c * S] = p[(size_t)c * S] / r;
}

extern "C" void rms_norm(const float* x, float* y, int N, int C, int H, int W, float eps,
                         cudaStream_t stream) {
  const int S = H * W;
  rms_norm_regs<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(x, y, C, S, eps);
}
