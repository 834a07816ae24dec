// KernelBench level 1, problem 48: torch.mean(x, dim) on (B, D1, D2), here with dim=2:
// reduction over the LAST (contiguous) dimension. One block per output row, shared-memory
// tree reduction, then the division by D2.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void mean_last_dim(const float* __restrict__ x, float* __restrict__ out, int D2) {
  __shared__ float buf[kThreads];
  const size_t row = blockIdx.x;
  const float* xr = x + row * D2;
  float s = 0.f;
  for (int j = threadIdx.x; j < D2; j += kThreads) s += xr[j];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[row] = buf[0] / (float)D2;
}

// kfuse: in  x   float[batch_size][dim1][dim2]
// kfuse: out out float[batch_size][dim1]
// kfuse: init x uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=128 dim1=4096 dim2=4095
// kfuse: check batch_size=3 dim1=33 dim2=129
// kfuse: check batch_size=2 dim1=7 dim2=1
extern "C" void mean_reduction_over_a_dimension(const float* x, float* out, int batch_size,
                                                int dim1, int dim2, cudaStream_t stream) {
  const int rows = batch_size * dim1;
  mean_last_dim<<<rows, kThreads, 0, stream>>>(x, out, dim2);
}
