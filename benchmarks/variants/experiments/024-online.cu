// Hand-written experiment (not kfuse output): level1/024 log_softmax with the row max and
// the row sum of exp(x - max) in one pass (an online softmax: each thread keeps a running
// max and a sum rescaled when the max grows; the partial pairs are merged by warp shuffles),
// then the reference's output kernel. Measures what merging the two reductions is worth.
#include <cuda_runtime.h>
#include <math.h>

#define RED_THREADS 1024

__global__ void row_max_sumexp_kernel(const float* __restrict__ x, float* __restrict__ row_max,
                                      float* __restrict__ row_sum, int D) {
  __shared__ float red_m[32], red_s[32];
  const float* xr = x + (size_t)blockIdx.x * D;
  const int bd = blockDim.x;
  float m = -INFINITY, s = 0.0f;
  for (int j = threadIdx.x; j < D; j += bd) {
    const float v = xr[j];
    if (v > m) {
      s = s * expf(m - v) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
    const float nm = fmaxf(m, om);
    s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
    m = nm;
  }
  if ((threadIdx.x & 31) == 0) { red_m[threadIdx.x >> 5] = m; red_s[threadIdx.x >> 5] = s; }
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < (bd >> 5) ? red_m[threadIdx.x] : -INFINITY;
    s = threadIdx.x < (bd >> 5) ? red_s[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) {
      const float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
      const float nm = fmaxf(m, om);
      s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
      m = nm;
    }
    if (threadIdx.x == 0) { row_max[blockIdx.x] = m; row_sum[blockIdx.x] = s; }
  }
}

__global__ void log_softmax_out_kernel(const float* __restrict__ x,
                                       const float* __restrict__ row_max,
                                       const float* __restrict__ row_sum, float* __restrict__ y,
                                       int D) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= D) return;
  const size_t idx = (size_t)row * D + col;
  y[idx] = x[idx] - row_max[row] - logf(row_sum[row]);
}

extern "C" void log_softmax(const float* x, float* y, int batch_size, int dim,
                            cudaStream_t stream) {
  float* row_max;
  float* row_sum;
  cudaMallocAsync(&row_max, batch_size * sizeof(float), stream);
  cudaMallocAsync(&row_sum, batch_size * sizeof(float), stream);
  row_max_sumexp_kernel<<<batch_size, RED_THREADS, 0, stream>>>(x, row_max, row_sum, dim);
  dim3 grid((dim + 255) / 256, batch_size);
  log_softmax_out_kernel<<<grid, 256, 0, stream>>>(x, row_max, row_sum, y, dim);
  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
}
