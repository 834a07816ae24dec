// Hand-written experiment (not kfuse output): level1/041 MaxPool1d with a row per blockIdx.y
// (no division of the flat index) and four outputs per thread, 256 apart (coalesced), whose
// windows are read together, the bounds checked once per window where it lies inside the
// row. It measures what a pooling rewrite would gain where torch.compile is 1.7x faster than
// the reference (docs/plans/arg-reductions-and-pooling.md). The maximum is taken in the
// reference's order with the reference's fmaxf, so the result is the same for every input.
#include <cuda_runtime.h>
#include <math.h>

#define OUTS 4
#define HOIST 1 // 0: every load checked, as the reference does (the plan's factor variants)

__global__ void __launch_bounds__(256) max_pool1d_rows(const float* __restrict__ x, float* __restrict__ y,
                                                       int rows, int L, int Lout, int K, int S, int P, int dil) {
  for (int r = blockIdx.y; r < rows; r += gridDim.y) {
    const float* row = x + (size_t)r * L;
    float* out = y + (size_t)r * Lout;
    const int o0 = blockIdx.x * (256 * OUTS) + threadIdx.x;
    float m[OUTS];
    int start[OUTS];
    bool inside = true;
#pragma unroll
    for (int u = 0; u < OUTS; u++) {
      m[u] = -INFINITY;
      start[u] = (o0 + u * 256) * S - P;
      inside = inside && o0 + u * 256 < Lout && start[u] >= 0 && start[u] + (K - 1) * dil < L;
    }
    if (HOIST && inside) {
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int u = 0; u < OUTS; u++) m[u] = fmaxf(m[u], row[start[u] + k * dil]);
      }
    } else {
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int u = 0; u < OUTS; u++) {
          const int pos = start[u] + k * dil;
          if (o0 + u * 256 < Lout && pos >= 0 && pos < L) m[u] = fmaxf(m[u], row[pos]);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < OUTS; u++)
      if (o0 + u * 256 < Lout) out[o0 + u * 256] = m[u];
  }
}

extern "C" void max_pooling_1d(const float* x, float* y, int N, int C, int L, int K, int S, int P,
                               int dilation, cudaStream_t stream) {
  const int Lout = (L + 2 * P - dilation * (K - 1) - 1) / S + 1;
  const int rows = N * C;
  dim3 grid((Lout + 256 * OUTS - 1) / (256 * OUTS), rows < 65535 ? rows : 65535);
  max_pool1d_rows<<<grid, 256, 0, stream>>>(x, y, rows, L, Lout, K, S, P, dilation);
}
