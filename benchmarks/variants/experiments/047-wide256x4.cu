// Hand-written experiment (not kfuse output): level1/047 with a two-dimensional block as
// PyTorch's reduction uses for a non-contiguous dimension: 256 output columns a block along x,
// 4 row slices along y (rows strided), 4 independent accumulators a thread, the 4 partial
// sums of a column combined in shared memory in a fixed order.
#include <cuda_runtime.h>

#define ROWS 4
#define BX 256
#define WAYS 4
#define CHUNKED 0

__global__ void __launch_bounds__(BX * ROWS)
sum_dim1_keepdim(const float* __restrict__ x, float* __restrict__ out, int D1, int D2) {
  __shared__ float part[ROWS][BX];
  const int j = blockIdx.x * BX + threadIdx.x;
  const int b = blockIdx.y;
  float acc[WAYS];
#pragma unroll
  for (int w = 0; w < WAYS; ++w) acc[w] = 0.0f;
  if (j < D2) {
    const float* base = x + (size_t)b * D1 * D2 + j;
#if CHUNKED
    const int per = (D1 + ROWS - 1) / ROWS;
    int i = threadIdx.y * per;
    const int end = min(D1, i + per);
    for (; i + WAYS - 1 < end; i += WAYS) {
#pragma unroll
      for (int w = 0; w < WAYS; ++w) acc[w] += base[(size_t)(i + w) * D2];
    }
    for (; i < end; ++i) acc[0] += base[(size_t)i * D2];
#else
    int i = threadIdx.y;
    for (; i + (WAYS - 1) * ROWS < D1; i += WAYS * ROWS) {
#pragma unroll
      for (int w = 0; w < WAYS; ++w) acc[w] += base[(size_t)(i + w * ROWS) * D2];
    }
    for (; i < D1; i += ROWS) acc[0] += base[(size_t)i * D2];
#endif
  }
#pragma unroll
  for (int h = WAYS / 2; h > 0; h /= 2)
#pragma unroll
    for (int w = 0; w < h; ++w) acc[w] += acc[w + h];
  part[threadIdx.y][threadIdx.x] = acc[0];
  __syncthreads();
  if (threadIdx.y == 0 && j < D2) {
    float s = 0.0f;
#pragma unroll
    for (int t = 0; t < ROWS; ++t) s += part[t][threadIdx.x];
    out[(size_t)b * D2 + j] = s;
  }
}

extern "C" void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size,
                                               int dim1, int dim2, cudaStream_t stream) {
  dim3 block(BX, ROWS);
  dim3 grid((dim2 + BX - 1) / BX, batch_size);
  sum_dim1_keepdim<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
