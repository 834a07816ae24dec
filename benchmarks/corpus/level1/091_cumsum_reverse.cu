// KernelBench level 1, problem 91: reverse cumsum along dim=1:
//   torch.cumsum(x.flip(1), dim=1).flip(1)
// as eager runs it: flip kernel, scan kernel, flip kernel, two temporaries.
#include <cuda_runtime.h>

__global__ void flip_last_dim(const float* __restrict__ in, float* __restrict__ out, int L) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (j < L) out[(size_t)r * L + j] = in[(size_t)r * L + (L - 1 - j)];
}

__global__ void scan_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int L) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    size_t base = (size_t)r * L;
    float acc = 0.f;
    for (int j = 0; j < L; ++j) {
      acc += in[base + j];
      out[base + j] = acc;
    }
  }
}

// kfuse: in  x float[batch_size][L]
// kfuse: out y float[batch_size][L]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume batch_size <= 65535
// kfuse: tune  batch_size=32768 L=32768
// kfuse: check batch_size=7 L=129
// kfuse: check batch_size=3 L=1
extern "C" void cumsum_reverse(const float* x, float* y, int batch_size, int L,
                               cudaStream_t stream) {
  const size_t bytes = (size_t)batch_size * L * sizeof(float);
  float *flipped, *scanned;
  cudaMallocAsync(&flipped, bytes, stream);
  cudaMallocAsync(&scanned, bytes, stream);
  dim3 fgrid((L + 255) / 256, batch_size);
  flip_last_dim<<<fgrid, 256, 0, stream>>>(x, flipped, L);
  scan_rows<<<(batch_size + 127) / 128, 128, 0, stream>>>(flipped, scanned, batch_size, L);
  flip_last_dim<<<fgrid, 256, 0, stream>>>(scanned, y, L);
  cudaFreeAsync(flipped, stream);
  cudaFreeAsync(scanned, stream);
}
