// KernelBench level 1, problem 3: Batched_matrix_multiplication
// torch.bmm: C[b] = A[b] @ B[b], A: (batch, m, k), B: (batch, k, n), C: (batch, m, n).
#include <cuda_runtime.h>

#define TILE_X 32
#define TILE_Y 8

__global__ void bmm_naive(const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C, int m, int k, int n) {
  const int b = blockIdx.z;
  const int i = blockIdx.y * TILE_Y + threadIdx.y;
  const int j = blockIdx.x * TILE_X + threadIdx.x;
  if (i >= m || j >= n) return;
  const float* a = A + (size_t)b * m * k + (size_t)i * k;
  const float* bb = B + (size_t)b * k * n;
  float acc = 0.f;
  for (int p = 0; p < k; ++p) acc += a[p] * bb[(size_t)p * n + j];
  C[(size_t)b * m * n + (size_t)i * n + j] = acc;
}

// kfuse: in  A float[batch][m][k]
// kfuse: in  B float[batch][k][n]
// kfuse: out C float[batch][m][n]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tune  batch=128 m=512 k=1024 n=2048
// kfuse: check batch=3 m=33 k=7 n=129
// kfuse: check batch=2 m=1 k=65 n=31
extern "C" void batched_matmul(const float* A, const float* B, float* C, int batch, int m, int k,
                               int n, cudaStream_t stream) {
  dim3 block(TILE_X, TILE_Y);
  dim3 grid((n + TILE_X - 1) / TILE_X, (m + TILE_Y - 1) / TILE_Y, batch);
  bmm_naive<<<grid, block, 0, stream>>>(A, B, C, m, k, n);
}
