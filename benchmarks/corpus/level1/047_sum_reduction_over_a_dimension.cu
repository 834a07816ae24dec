// KernelBench level 1, problem 47: torch.sum(x, dim=1, keepdim=True) on (B, D1, D2):
// reduction over the MIDDLE dimension. One thread per output element loops over D1;
// neighbouring threads read neighbouring columns.
#include <cuda_runtime.h>

__global__ void sum_dim1_keepdim(const float* __restrict__ x, float* __restrict__ out, int D1,
                                 int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j < D2) {
    const float* base = x + (size_t)b * D1 * D2 + j;
    float s = 0.0f;
    for (int i = 0; i < D1; ++i) s += base[(size_t)i * D2];
    out[(size_t)b * D2 + j] = s;
  }
}

// kfuse: in  x   float[batch_size][dim1][dim2]
// kfuse: out out float[batch_size][1][dim2]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=128 dim1=4096 dim2=4095
// kfuse: check batch_size=3 dim1=33 dim2=129
// kfuse: check batch_size=2 dim1=1 dim2=7
extern "C" void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size,
                                               int dim1, int dim2, cudaStream_t stream) {
  dim3 block(128);
  dim3 grid((dim2 + 127) / 128, batch_size);
  sum_dim1_keepdim<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
