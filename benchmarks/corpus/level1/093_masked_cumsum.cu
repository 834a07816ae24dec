// KernelBench level 1, problem 93: masked cumsum along dim=1: torch.cumsum(x * mask, dim=1),
// mask a bool tensor. Eager: multiply kernel into a temporary, then the scan.
#include <cuda_runtime.h>

__global__ void mask_mul(const float* __restrict__ x, const bool* __restrict__ mask,
                         float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    out[i] = x[i] * mask[i];
}

__global__ void row_scan(const float* __restrict__ in, float* __restrict__ out, size_t rows,
                         size_t L) {
  size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (size_t j = 0; j < L; ++j) {
    s += in[r * L + j];
    out[r * L + j] = s;
  }
}

// kfuse: in  x    float[batch_size][L]
// kfuse: in  mask bool[batch_size][L]
// kfuse: out y    float[batch_size][L]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 L=32768
// kfuse: check batch_size=7 L=129
// kfuse: check batch_size=2 L=3
extern "C" void masked_cumsum(const float* x, const bool* mask, float* y, size_t batch_size,
                              size_t L, cudaStream_t stream) {
  const size_t n = batch_size * L;
  float* masked = nullptr;
  cudaMallocAsync(&masked, n * sizeof(float), stream);
  mask_mul<<<2048, 256, 0, stream>>>(x, mask, masked, n);
  row_scan<<<(unsigned int)((batch_size + 63) / 64), 64, 0, stream>>>(masked, y, batch_size, L);
  cudaFreeAsync(masked, stream);
}
