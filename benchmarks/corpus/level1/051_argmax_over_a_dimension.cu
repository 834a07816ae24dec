// KernelBench level 1, problem 51: torch.argmax(x, dim=1) on (B, D1, D2) -> int64 (B, D2).
// Ties resolve to the first index, as PyTorch documents.
#include <cuda_runtime.h>

__global__ void argmax_dim1(const float* __restrict__ x, long long* __restrict__ idx, int D1,
                            int D2) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= D2) return;
  const float* p = x + (size_t)b * D1 * D2 + j;
  float best = p[0];
  int best_i = 0;
  for (int i = 1; i < D1; ++i) {
    float v = p[(size_t)i * D2];
    if (v > best) {
      best = v;
      best_i = i;
    }
  }
  idx[(size_t)b * D2 + j] = best_i;
}

// kfuse: in  x   float[batch_size][dim1][dim2]
// kfuse: out out int64[batch_size][dim2]
// kfuse: init x uniform(0,1)
// kfuse: assume dim1 >= 1
// kfuse: tune  batch_size=128 dim1=4096 dim2=4095
// kfuse: check batch_size=3 dim1=33 dim2=129
// kfuse: check batch_size=2 dim1=1 dim2=7
extern "C" void argmax_over_a_dimension(const float* x, long long* out, int batch_size, int dim1,
                                        int dim2, cudaStream_t stream) {
  dim3 grid((dim2 + 255) / 256, batch_size);
  argmax_dim1<<<grid, 256, 0, stream>>>(x, out, dim1, dim2);
}
