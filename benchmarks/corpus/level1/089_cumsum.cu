// KernelBench level 1, problem 89: torch.cumsum(x, dim=1) on (batch, L).
// Naive scan: one thread per row walks the row sequentially.
#include <cuda_runtime.h>

__global__ void cumsum_rows(const float* __restrict__ x, float* __restrict__ y, long rows, long L) {
  const long r = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * L;
  float* out = y + r * L;
  float running = 0.0f;
  for (long j = 0; j < L; ++j) {
    running += in[j];
    out[j] = running;
  }
}

// kfuse: in  x float[batch_size][L]
// kfuse: out y float[batch_size][L]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 L=32768
// kfuse: check batch_size=7 L=129
// kfuse: check batch_size=33 L=1
// kfuse: check batch_size=1 L=5000
extern "C" void cumsum(const float* x, float* y, long batch_size, long L, cudaStream_t stream) {
  const int threads = 128;
  cumsum_rows<<<(unsigned int)((batch_size + threads - 1) / threads), threads, 0, stream>>>(
      x, y, batch_size, L);
}
