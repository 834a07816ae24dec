// KernelBench level 1, problem 49: torch.max(x, dim=1)[0] on (B, D1, D2): middle dimension.
#include <cuda_runtime.h>
#include <math.h>

__global__ void max_dim1(const float* __restrict__ x, float* __restrict__ out, int64_t B,
                         int64_t D1, int64_t D2) {
  const int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= B * D2) return;
  const int64_t b = o / D2, j = o % D2;
  const float* p = x + b * D1 * D2 + j;
  float m = -INFINITY;
  for (int64_t i = 0; i < D1; ++i) m = fmaxf(m, p[i * D2]);
  out[o] = m;
}

// kfuse: in  x   float[B][D1][D2]
// kfuse: out out float[B][D2]
// kfuse: init x uniform(0,1)
// kfuse: tune  B=128 D1=4096 D2=4095
// kfuse: check B=3 D1=33 D2=129
// kfuse: check B=1 D1=1 D2=5
extern "C" void max_reduction_over_a_dimension(const float* x, float* out, int64_t B, int64_t D1,
                                               int64_t D2, cudaStream_t stream) {
  const int64_t n = B * D2;
  max_dim1<<<(unsigned int)((n + 255) / 256), 256, 0, stream>>>(x, out, B, D1, D2);
}
