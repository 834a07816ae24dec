// Hand-written experiment (not kfuse output): level1/024 log_softmax with the row max and
// the row sum of exp(x - max) in one pass, 16-byte loads where the row is aligned (an online softmax: each thread keeps a running
// max and a sum rescaled when the max grows; the partial pairs are merged by warp shuffles),
// then the output kernel flattened to one grid-stride loop over
// all elements with 16-byte loads and stores (the row from a division). Measures what merging the two reductions is worth.
#include <cuda_runtime.h>
#include <math.h>

#define RED_THREADS 1024

__global__ void row_max_sumexp_kernel(const float* __restrict__ x, float* __restrict__ row_max,
                                      float* __restrict__ row_sum, int D) {
  __shared__ float red_m[32], red_s[32];
  const float* xr = x + (size_t)blockIdx.x * D;
  const int bd = blockDim.x;
  float m = -INFINITY, s = 0.0f, m1 = -INFINITY, s1 = 0.0f;
  int j = threadIdx.x;
  if (((size_t)xr & 15) == 0) {
    const int D4 = D >> 2;
    for (int q = threadIdx.x; q < D4; q += bd) {
      const float4 v = reinterpret_cast<const float4*>(xr)[q];
      const float a = fmaxf(v.x, v.y), b = fmaxf(v.z, v.w);
      const float na = fmaxf(m, a), nb = fmaxf(m1, b);
      s = s * expf(m - na) + expf(v.x - na) + expf(v.y - na);
      s1 = s1 * expf(m1 - nb) + expf(v.z - nb) + expf(v.w - nb);
      m = na;
      m1 = nb;
    }
    j = 4 * D4 + threadIdx.x;
  }
  for (; j < D; j += bd) {
    const float v = xr[j];
    const float n = fmaxf(m, v);
    s = s * expf(m - n) + expf(v - n);
    m = n;
  }
  {
    const float nm = fmaxf(m, m1);
    s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (m1 == -INFINITY ? 0.0f : s1 * expf(m1 - nm));
    m = nm;
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
                                       long long n, int D) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long n4 = ((((size_t)x | (size_t)y) & 15) == 0 && D % 4 == 0) ? n / 4 : 0;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n4; j += stride) {
    const int row = (int)(4 * j / D);
    const float sub = row_max[row] + logf(row_sum[row]);
    float4 v = reinterpret_cast<const float4*>(x)[j];
    v.x -= sub; v.y -= sub; v.z -= sub; v.w -= sub;
    reinterpret_cast<float4*>(y)[j] = v;
  }
  for (long long i = 4 * n4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int row = (int)(i / D);
    y[i] = x[i] - row_max[row] - logf(row_sum[row]);
  }
}

extern "C" void log_softmax(const float* x, float* y, int batch_size, int dim,
                            cudaStream_t stream) {
  float* row_max;
  float* row_sum;
  cudaMallocAsync(&row_max, batch_size * sizeof(float), stream);
  cudaMallocAsync(&row_sum, batch_size * sizeof(float), stream);
  row_max_sumexp_kernel<<<batch_size, RED_THREADS, 0, stream>>>(x, row_max, row_sum, dim);
  const long long n = (long long)batch_size * dim;
  log_softmax_out_kernel<<<(unsigned)(n / 1024 + 1 < 1048576 ? n / 1024 + 1 : 1048576), 256, 0, stream>>>(x, row_max, row_sum, y, n, dim);
  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
}
