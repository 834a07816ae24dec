// KernelBench level 1, problem 1: Square_matrix_multiplication_
// C = A @ B with A, B, C all N x N, row-major. Naive GEMM: one thread per output element.
#include <cuda_runtime.h>

__global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
      acc += A[row * N + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}

// kfuse: in  A float[N][N]
// kfuse: in  B float[N][N]
// kfuse: out C float[N][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=4096
// kfuse: check N=33
// kfuse: check N=129
extern "C" void square_matmul(const float* A, const float* B, float* C, int N,
                              cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (N + block.y - 1) / block.y);
  matmul_naive<<<grid, block, 0, stream>>>(A, B, C, N);
}
