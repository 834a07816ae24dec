// Launch-bound slice, problem 10: a short chain of level-1 reductions and normalizations on
// the rows of x[N][D]:
//   p = softmax(x, dim=1); h = layer_norm(p, (D,), weight, bias, eps=1e-5); g = gelu(h);
//   y = g / sqrt(mean(g^2, dim=1, keepdim=True) + 1e-5)       (RMS norm without weight)
// Not one KernelBench problem but four level-1 ones of the corpus in a row, each written as
// its corpus program writes it, one kernel per operator as eager mode runs them:
//   softmax as level1/024's log_softmax (row max, row sum of exp(x - max), then the output:
//   exp(x - max) / sum here), the layer norm of level1/040 over the last dim (moments, then
//   normalize + affine), level1/026's erf GELU, and level1/036's RMS norm over the last dim
//   (square, mean, add eps, sqrt, divide).
// Row reductions: one block per row, shared-memory tree; the mean of squares: one thread
// per row.
// Why these shapes: 8 rows of 256: each kernel touches 2048 floats or fewer, a few
// microseconds of GPU work, so a call's time is its 11 launches.
#include <cuda_runtime.h>
#include <math.h>

#define RED_THREADS 256
#define LN_EPS 1e-5f

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int D) {
  __shared__ float smem[RED_THREADS];
  const float* xr = x + (size_t)blockIdx.x * D;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, xr[j]);
  smem[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) row_max[blockIdx.x] = smem[0];
}

__global__ void row_sumexp_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                  float* __restrict__ row_sum, int D) {
  __shared__ float smem[RED_THREADS];
  const float* xr = x + (size_t)blockIdx.x * D;
  const float m = row_max[blockIdx.x];
  float acc = 0.0f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) acc += expf(xr[j] - m);
  smem[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) row_sum[blockIdx.x] = smem[0];
}

__global__ void softmax_out_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                   const float* __restrict__ row_sum, float* __restrict__ p,
                                   int D) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= D) return;
  const size_t idx = (size_t)row * D + col;
  p[idx] = expf(x[idx] - row_max[row]) / row_sum[row];
}

// mean and rstd of each row (two passes over the row, shared-memory tree)
__global__ void layernorm_moments(const float* __restrict__ x, float* __restrict__ mean,
                                  float* __restrict__ rstd, int M) {
  __shared__ float red[RED_THREADS];
  __shared__ float mu_s;
  const float* row = x + (size_t)blockIdx.x * M;
  const int t = threadIdx.x;

  float s = 0.0f;
  for (int i = t; i < M; i += RED_THREADS) s += row[i];
  red[t] = s;
  __syncthreads();
  for (int k = RED_THREADS / 2; k > 0; k >>= 1) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) mu_s = red[0] / M;
  __syncthreads();
  const float mu = mu_s;

  float q = 0.0f;
  for (int i = t; i < M; i += RED_THREADS) {
    const float d = row[i] - mu;
    q += d * d;
  }
  red[t] = q;
  __syncthreads();
  for (int k = RED_THREADS / 2; k > 0; k >>= 1) {
    if (t < k) red[t] += red[t + k];
    __syncthreads();
  }
  if (t == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = 1.0f / sqrtf(red[0] / M + LN_EPS);
  }
}

__global__ void layernorm_apply(const float* __restrict__ x, const float* __restrict__ mean,
                                const float* __restrict__ rstd, const float* __restrict__ w,
                                const float* __restrict__ b, float* __restrict__ y, int M) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = blockIdx.y;
  if (i >= M) return;
  const size_t idx = (size_t)n * M + i;
  y[idx] = (x[idx] - mean[n]) * rstd[n] * w[i] + b[i];
}

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
}

__global__ void square_kernel(const float* __restrict__ x, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = v * v;
  }
}

// mean over the last dim of [N][D] -> [N][1]; one thread per output element
__global__ void mean_lastdim_kernel(const float* __restrict__ in, float* __restrict__ out, int N,
                                    int D) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= N) return;
  const float* p = in + (size_t)r * D;
  float acc = 0.f;
  for (int d = 0; d < D; ++d) acc += p[d];
  out[r] = acc / D;
}

__global__ void add_scalar_kernel(const float* __restrict__ in, float* __restrict__ out, float v,
                                  size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + v;
}

__global__ void sqrt_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]);
}

// y[n][d] = x[n][d] / r[n]
__global__ void div_rows_kernel(const float* __restrict__ x, const float* __restrict__ r,
                                float* __restrict__ y, int D) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (d >= D) return;
  size_t idx = (size_t)n * D + d;
  y[idx] = x[idx] / r[n];
}

// kfuse: in  x      float[N][D]
// kfuse: in  weight float[D]
// kfuse: in  bias   float[D]
// kfuse: out y      float[N][D]
// kfuse: init x      uniform(0,1)
// kfuse: init weight uniform(0.5,1.5)
// kfuse: init bias   uniform(-0.5,0.5)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: assume N <= 65535
// kfuse: tune  N=8 D=256
// kfuse: check N=3 D=129
// kfuse: check N=5 D=7
// kfuse: check N=1 D=1000
extern "C" void softmax_layernorm_small(const float* x, const float* weight, const float* bias,
                                        float* y, int N, int D, cudaStream_t stream) {
  const size_t n = (size_t)N * D;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  const dim3 rows_grid((D + 255) / 256, N);
  float *row_max, *row_sum, *p, *mean, *rstd, *h, *g, *sq, *ms, *ms_eps, *rms;
  cudaMallocAsync(&row_max, N * sizeof(float), stream);
  cudaMallocAsync(&row_sum, N * sizeof(float), stream);
  cudaMallocAsync(&p, n * sizeof(float), stream);
  cudaMallocAsync(&mean, N * sizeof(float), stream);
  cudaMallocAsync(&rstd, N * sizeof(float), stream);
  cudaMallocAsync(&h, n * sizeof(float), stream);
  cudaMallocAsync(&g, n * sizeof(float), stream);
  cudaMallocAsync(&sq, n * sizeof(float), stream);
  cudaMallocAsync(&ms, N * sizeof(float), stream);
  cudaMallocAsync(&ms_eps, N * sizeof(float), stream);
  cudaMallocAsync(&rms, N * sizeof(float), stream);

  // softmax over dim 1
  row_max_kernel<<<N, RED_THREADS, 0, stream>>>(x, row_max, D);
  row_sumexp_kernel<<<N, RED_THREADS, 0, stream>>>(x, row_max, row_sum, D);
  softmax_out_kernel<<<rows_grid, 256, 0, stream>>>(x, row_max, row_sum, p, D);
  // layer norm over the last dim
  layernorm_moments<<<N, RED_THREADS, 0, stream>>>(p, mean, rstd, D);
  layernorm_apply<<<rows_grid, 256, 0, stream>>>(p, mean, rstd, weight, bias, h, D);
  // gelu
  gelu_kernel<<<blocks, 256, 0, stream>>>(h, g, n);
  // RMS norm over the last dim
  square_kernel<<<blocks, 256, 0, stream>>>(g, sq, n);
  mean_lastdim_kernel<<<(N + 255) / 256, 256, 0, stream>>>(sq, ms, N, D);
  add_scalar_kernel<<<(N + 255) / 256, 256, 0, stream>>>(ms, ms_eps, 1e-5f, N);
  sqrt_kernel<<<(N + 255) / 256, 256, 0, stream>>>(ms_eps, rms, N);
  div_rows_kernel<<<rows_grid, 256, 0, stream>>>(g, rms, y, D);

  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
  cudaFreeAsync(p, stream);
  cudaFreeAsync(mean, stream);
  cudaFreeAsync(rstd, stream);
  cudaFreeAsync(h, stream);
  cudaFreeAsync(g, stream);
  cudaFreeAsync(sq, stream);
  cudaFreeAsync(ms, stream);
  cudaFreeAsync(ms_eps, stream);
  cudaFreeAsync(rms, stream);
}
