// KernelBench level 1, problem 52: torch.argmin(x, dim=1) on (B, D1, D2) -> int64 (B, D2).
// Ties resolve to the first index.
#include <cuda_runtime.h>

__global__ void argmin_dim1(const float* x, int64_t* out, int64_t B, int64_t D1, int64_t D2) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < B * D2;
       o += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = o / D2;
    const int64_t j = o - b * D2;
    const float* col = x + b * D1 * D2 + j;
    float best = col[0];
    int64_t arg = 0;
    for (int64_t i = 1; i < D1; ++i) {
      const float v = col[i * D2];
      arg = v < best ? i : arg;
      best = v < best ? v : best;
    }
    out[o] = arg;
  }
}

// kfuse: in  x   float[B][D1][D2]
// kfuse: out out int64[B][D2]
// kfuse: init x uniform(0,1)
// kfuse: assume D1 >= 1
// kfuse: tune  B=128 D1=4096 D2=4095
// kfuse: check B=3 D1=33 D2=129
// kfuse: check B=2 D1=7 D2=1
extern "C" void argmin_over_a_dimension(const float* x, int64_t* out, int64_t B, int64_t D1,
                                        int64_t D2, cudaStream_t stream) {
  argmin_dim1<<<1024, 256, 0, stream>>>(x, out, B, D1, D2);
}
