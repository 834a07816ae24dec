// Hand-written experiment (not kfuse output): level1/047 with eight threads per output
// column, each summing every eighth row, combined through shared memory.
#include <cuda_runtime.h>

__global__ void sum_dim1_keepdim(const float* __restrict__ x, float* __restrict__ out, int D1,
                                 int D2) {
  __shared__ float part[8][33];
  const int j = blockIdx.x * 32 + threadIdx.x;
  const int b = blockIdx.y;
  float s0 = 0.0f, s1 = 0.0f;
  if (j < D2) {
    const float* base = x + (size_t)b * D1 * D2 + j;
    int i = threadIdx.y;
    for (; i + 8 < D1; i += 16) {
      s0 += base[(size_t)i * D2];
      s1 += base[(size_t)(i + 8) * D2];
    }
    for (; i < D1; i += 8) s0 += base[(size_t)i * D2];
  }
  part[threadIdx.y][threadIdx.x] = s0 + s1;
  __syncthreads();
  if (threadIdx.y == 0 && j < D2) {
    float s = 0.0f;
    for (int t = 0; t < 8; ++t) s += part[t][threadIdx.x];
    out[(size_t)b * D2 + j] = s;
  }
}

extern "C" void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size,
                                               int dim1, int dim2, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((dim2 + 31) / 32, batch_size);
  sum_dim1_keepdim<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
