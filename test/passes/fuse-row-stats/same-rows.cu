// Two independent block reductions over the same rows (a triplet loss's distances from the
// anchor to the positive and to the negative) become one kernel that reads the anchor once;
// the second kernel's locals are renamed where the first's have their names.
// RUN: %kfuse %s --passes=fuse-row-stats --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse fuse-row-stats of pairwise_distance and pairwise_distance (lines {{[0-9]+}}, {{[0-9]+}}): both reductions
// CHECK: __global__ void __launch_bounds__(1024) fused_pairwise_distance_pairwise_distance(const float *__restrict a, const float *__restrict b, float *__restrict dist, int D, const float *__restrict b_2, float *__restrict dist_2)
// CHECK: const size_t off = (size_t)blockIdx.x * D;
// CHECK-NEXT: const size_t off_2 = (size_t)blockIdx.x * D;
// CHECK: const int j = (int)kf_j;
// CHECK-NEXT: const int j_2 = (int)kf_j;
// CHECK-NEXT: const float d = a[off + j] - b[off + j] + 1e-6f;
// CHECK-NEXT: const float d_2 = a[off_2 + j_2] - b_2[off_2 + j_2] + 1e-6f;
// CHECK-NEXT: kf_a0 += d * d;
// CHECK-NEXT: kf_a1 += d_2 * d_2;
// CHECK: dist[blockIdx.x] = sqrtf(kf_a0);
// CHECK-NEXT: dist_2[blockIdx.x] = sqrtf(kf_a1);
// CHECK-LABEL: {{^}}extern "C" void triplet
// CHECK: fused_pairwise_distance_pairwise_distance<<<batch, 1024, 0, stream>>>(anchor, positive, d_pos, dim, negative, d_neg);
// CHECK-NEXT: triplet_mean<<<1, 256, 0, stream>>>
#include <cuda_runtime.h>

__global__ void pairwise_distance(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ dist, int D) {
  __shared__ float sm[256];
  const size_t off = (size_t)blockIdx.x * D;
  float s = 0.0f;
  for (int j = threadIdx.x; j < D; j += 256) {
    const float d = a[off + j] - b[off + j] + 1e-6f;
    s += d * d;
  }
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = 256 / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) dist[blockIdx.x] = sqrtf(sm[0]);
}

__global__ void triplet_mean(const float* d_pos, const float* d_neg, float* out, int N, float margin) {
  __shared__ float sm[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < N; i += 256) s += fmaxf(margin + d_pos[i] - d_neg[i], 0.0f);
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sm[0] / N;
}

// kfuse: in  anchor   float[batch][dim]
// kfuse: in  positive float[batch][dim]
// kfuse: in  negative float[batch][dim]
// kfuse: out loss     float[1]
// kfuse: tune batch=64 dim=4096 margin=1.0
extern "C" void triplet(const float* anchor, const float* positive, const float* negative, float* loss,
                        int batch, int dim, float margin, cudaStream_t stream) {
  float* dists;
  cudaMallocAsync(&dists, 2 * sizeof(float) * batch, stream);
  float* d_pos = dists;
  float* d_neg = dists + batch;
  pairwise_distance<<<batch, 256, 0, stream>>>(anchor, positive, d_pos, dim);
  pairwise_distance<<<batch, 256, 0, stream>>>(anchor, negative, d_neg, dim);
  triplet_mean<<<1, 256, 0, stream>>>(d_pos, d_neg, loss, batch, margin);
  cudaFreeAsync(dists, stream);
}
