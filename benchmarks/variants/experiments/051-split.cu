// Hand-written experiment (not kfuse output): level1/051 argmax over the middle dimension
// with R threads per output column (R = 4, block 64 x 4; the plan's commands make R = 8),
// each taking every R-th row in two accumulators of its own, combined through shared
// memory. It measures what split-accumulators would gain from an arg form (docs/plans/
// arg-reductions-and-pooling.md). Every accumulator starts where the reference's does,
// (p[0], 0), and keeps the reference's `v > best`; the combine takes a larger value, or an
// equal one at a smaller index. So the result is the reference's for every input, NaN
// included: a NaN p[0] stays in every accumulator and wins the combine; a NaN elsewhere is
// skipped by every `v > best`, as in the reference.
#include <cuda_runtime.h>

#ifndef R
#define R 4
#endif
#define BX (256 / R)

__device__ __forceinline__ void take(float& best, int& bi, float v, int i) {
  if (v > best || (v == best && i < bi)) {
    best = v;
    bi = i;
  }
}

__global__ void __launch_bounds__(256) argmax_dim1_split(const float* __restrict__ x,
                                                          long long* __restrict__ idx, int D1,
                                                          int D2) {
  __shared__ float part_v[R][BX];
  __shared__ int part_i[R][BX];
  const int j = blockIdx.x * BX + threadIdx.x;
  const int b = blockIdx.y;
  float best0 = 0.0f, best1 = 0.0f;
  int bi0 = 0, bi1 = 0;
  if (j < D2) {
    const float* p = x + (size_t)b * D1 * D2 + j;
    best0 = best1 = p[0];
    int i = 1 + threadIdx.y;
    for (; i + R < D1; i += 2 * R) {
      const float v0 = p[(size_t)i * D2];
      const float v1 = p[(size_t)(i + R) * D2];
      if (v0 > best0) {
        best0 = v0;
        bi0 = i;
      }
      if (v1 > best1) {
        best1 = v1;
        bi1 = i + R;
      }
    }
    for (; i < D1; i += R) {
      const float v = p[(size_t)i * D2];
      if (v > best0) {
        best0 = v;
        bi0 = i;
      }
    }
    take(best0, bi0, best1, bi1);
  }
  part_v[threadIdx.y][threadIdx.x] = best0;
  part_i[threadIdx.y][threadIdx.x] = bi0;
  __syncthreads();
  if (threadIdx.y == 0 && j < D2) {
    float best = part_v[0][threadIdx.x];
    int bi = part_i[0][threadIdx.x];
    for (int t = 1; t < R; ++t) take(best, bi, part_v[t][threadIdx.x], part_i[t][threadIdx.x]);
    idx[(size_t)b * D2 + j] = bi;
  }
}

extern "C" void argmax_over_a_dimension(const float* x, long long* out, int batch_size, int dim1,
                                        int dim2, cudaStream_t stream) {
  dim3 block(BX, R);
  dim3 grid((dim2 + BX - 1) / BX, batch_size);
  argmax_dim1_split<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
