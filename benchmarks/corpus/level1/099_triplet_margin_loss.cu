// KernelBench level 1, problem 99: TripletMarginLoss(margin) (p = 2, eps = 1e-6, mean).
//   d(a, b) = || a - b + eps ||_2 per row;  loss = mean(max(margin + d(a,p) - d(a,n), 0))
// Two pairwise-distance kernels (one block per row) and a single-block mean.
#include <cuda_runtime.h>

#define PD_EPS 1e-6f
#define PD_THREADS 256
#define MEAN_THREADS 1024

__global__ void pairwise_distance(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ dist, int D) {
  __shared__ float sm[PD_THREADS];
  const size_t off = (size_t)blockIdx.x * D;
  float s = 0.0f;
  for (int j = threadIdx.x; j < D; j += PD_THREADS) {
    const float d = a[off + j] - b[off + j] + PD_EPS;
    s += d * d;
  }
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = PD_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) dist[blockIdx.x] = sqrtf(sm[0]);
}

__global__ void triplet_mean(const float* __restrict__ d_pos, const float* __restrict__ d_neg,
                             float* __restrict__ out, int N, float margin) {
  __shared__ float sm[MEAN_THREADS];
  float s = 0.0f;
  for (int i = threadIdx.x; i < N; i += MEAN_THREADS) s += fmaxf(margin + d_pos[i] - d_neg[i], 0.0f);
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = MEAN_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sm[0] / N;
}

// kfuse: in  anchor   float[batch_size][dim]
// kfuse: in  positive float[batch_size][dim]
// kfuse: in  negative float[batch_size][dim]
// kfuse: out loss     float[1]
// kfuse: init anchor uniform(0,1)
// kfuse: init positive uniform(0,1)
// kfuse: init negative uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 dim=8192 margin=1.0
// kfuse: check batch_size=7 dim=129 margin=1.0
// kfuse: check batch_size=33 dim=3 margin=0.5
extern "C" void triplet_margin_loss(const float* anchor, const float* positive,
                                    const float* negative, float* loss, int batch_size, int dim,
                                    float margin, cudaStream_t stream) {
  float* dists;
  cudaMallocAsync(&dists, 2 * sizeof(float) * batch_size, stream);
  float* d_pos = dists;
  float* d_neg = dists + batch_size;
  pairwise_distance<<<batch_size, PD_THREADS, 0, stream>>>(anchor, positive, d_pos, dim);
  pairwise_distance<<<batch_size, PD_THREADS, 0, stream>>>(anchor, negative, d_neg, dim);
  triplet_mean<<<1, MEAN_THREADS, 0, stream>>>(d_pos, d_neg, loss, batch_size, margin);
  cudaFreeAsync(dists, stream);
}
