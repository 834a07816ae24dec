// Hand-written experiment (not kfuse output): level1/036 rms_norm in one kernel: each
// thread computes the mean of squares over the channels of its (n, s) (the reference's
// mean_dim1 loop, coalesced across s), then walks the same channels again and writes
// x / rms, so that rms is never stored and x is read twice (the second time mostly from
// L2) instead of three times.
#include <cuda_runtime.h>

__global__ void rms_norm_fused(const float* __restrict__ x, float* __restrict__ y, int C, int S, float eps) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  const float* p = x + (size_t)n * C * S + s;
  float* q = y + (size_t)n * C * S + s;
  float acc = 0.f;
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
  rms_norm_fused<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(x, y, C, S, eps);
}
