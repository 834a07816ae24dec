// KernelBench level 1, problem 95: F.cross_entropy(predictions, targets) (mean) -> scalar.
// Eager: log_softmax over the class dim (one block per row, max and sum-exp reduced in
// shared memory, log-probabilities written out), then nll_loss gathered and averaged by a
// single block.
#include <cuda_runtime.h>
#include <math.h>

constexpr int LSM_THREADS = 256;
constexpr int NLL_THREADS = 1024;

__global__ void log_softmax_rows(const float* __restrict__ x, float* __restrict__ logp, int C) {
  __shared__ float red[LSM_THREADS];
  const float* row = x + (size_t)blockIdx.x * C;
  float* out = logp + (size_t)blockIdx.x * C;
  const int t = threadIdx.x;

  float m = -INFINITY;
  for (int j = t; j < C; j += LSM_THREADS) m = fmaxf(m, row[j]);
  red[t] = m;
  __syncthreads();
  for (int s = LSM_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();

  float acc = 0.0f;
  for (int j = t; j < C; j += LSM_THREADS) acc += expf(row[j] - row_max);
  red[t] = acc;
  __syncthreads();
  for (int s = LSM_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  const float log_sum = logf(red[0]);

  for (int j = t; j < C; j += LSM_THREADS) out[j] = row[j] - row_max - log_sum;
}

__global__ void nll_mean(const float* __restrict__ logp, const int64_t* __restrict__ target,
                         float* __restrict__ loss, int N, int C) {
  __shared__ float red[NLL_THREADS];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < N; i += NLL_THREADS) acc -= logp[(size_t)i * C + target[i]];
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int s = NLL_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) loss[0] = red[0] / N;
}

// kfuse: in  predictions float[batch_size][num_classes]
// kfuse: in  targets     int64[batch_size]
// kfuse: out loss        float[1]
// kfuse: init predictions uniform(0,1)
// kfuse: init targets int(0,num_classes)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 num_classes=4096
// kfuse: check batch_size=7 num_classes=129
// kfuse: check batch_size=33 num_classes=3
extern "C" void cross_entropy_loss(const float* predictions, const int64_t* targets, float* loss,
                                   int batch_size, int num_classes, cudaStream_t stream) {
  float* logp;
  cudaMallocAsync(&logp, sizeof(float) * (size_t)batch_size * num_classes, stream);
  log_softmax_rows<<<batch_size, LSM_THREADS, 0, stream>>>(predictions, logp, num_classes);
  nll_mean<<<1, NLL_THREADS, 0, stream>>>(logp, targets, loss, batch_size, num_classes);
  cudaFreeAsync(logp, stream);
}
