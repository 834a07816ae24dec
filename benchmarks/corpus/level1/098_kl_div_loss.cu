// KernelBench level 1, problem 98: F.kl_div(torch.log(predictions), targets,
// reduction='batchmean') -> scalar. Eager: log kernel, elementwise
// xlogy(t, t) - t * logp kernel, row sums (one block per row), then a final block sums the
// rows and divides by the batch size.
#include <cuda_runtime.h>

#define ROW_THREADS 256
#define FIN_THREADS 1024

__global__ void log_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = logf(in[i]);
}

__global__ void kl_pointwise(const float* __restrict__ logp, const float* __restrict__ t,
                             float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) {
    const float tv = t[i];
    const float xlogx = tv == 0.0f ? 0.0f : tv * logf(tv);
    out[i] = xlogx - tv * logp[i];
  }
}

__global__ void row_sum(const float* __restrict__ in, float* __restrict__ out, int D) {
  __shared__ float sm[ROW_THREADS];
  const float* r = in + (size_t)blockIdx.x * D;
  float s = 0.0f;
  for (int j = threadIdx.x; j < D; j += ROW_THREADS) s += r[j];
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = ROW_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sm[0];
}

__global__ void batchmean(const float* __restrict__ rows, float* __restrict__ out, int N) {
  __shared__ float sm[FIN_THREADS];
  float s = 0.0f;
  for (int i = threadIdx.x; i < N; i += FIN_THREADS) s += rows[i];
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = FIN_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sm[0] / N;
}

// kfuse: in  predictions float[batch_size][dim]
// kfuse: in  targets     float[batch_size][dim]
// kfuse: out loss        float[1]
// kfuse: init predictions uniform(0.05,1)
// kfuse: init targets uniform(0.05,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=16384 dim=16384
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=33 dim=5
extern "C" void kl_div_loss(const float* predictions, const float* targets, float* loss,
                            int batch_size, int dim, cudaStream_t stream) {
  const size_t n = (size_t)batch_size * dim;
  const unsigned int blocks = (unsigned int)((n + 255) / 256);
  float *logp, *pointwise, *rows;
  cudaMallocAsync(&logp, n * sizeof(float), stream);
  cudaMallocAsync(&pointwise, n * sizeof(float), stream);
  cudaMallocAsync(&rows, batch_size * sizeof(float), stream);
  log_kernel<<<blocks, 256, 0, stream>>>(predictions, logp, n);
  kl_pointwise<<<blocks, 256, 0, stream>>>(logp, targets, pointwise, n);
  row_sum<<<batch_size, ROW_THREADS, 0, stream>>>(pointwise, rows, dim);
  batchmean<<<1, FIN_THREADS, 0, stream>>>(rows, loss, batch_size);
  cudaFreeAsync(logp, stream);
  cudaFreeAsync(pointwise, stream);
  cudaFreeAsync(rows, stream);
}
