// A hand-written variant of level1/001_square_matmul: a 32x32 shared-memory tiled GEMM
// (each thread computes one C element; A and B tiles staged through shared memory).
#include <cuda_runtime.h>

#define TILE 32

__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int N) {
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < N; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < N && t + threadIdx.x < N) ? A[(size_t)row * N + t + threadIdx.x] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (t + threadIdx.y < N && col < N) ? B[(size_t)(t + threadIdx.y) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < N && col < N) C[(size_t)row * N + col] = acc;
}

extern "C" void square_matmul(const float* A, const float* B, float* C, int N,
                              cudaStream_t stream) {
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
  matmul_tiled<<<grid, block, 0, stream>>>(A, B, C, N);
}
