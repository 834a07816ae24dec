// KernelBench level 1, problem 18: Matmul_with_transposed_both
// C (M x N) = A^T @ B^T, A stored (K x M), B stored (N x K).
#include <cuda_runtime.h>

constexpr int kBlock = 256;

__global__ void matmul_tt(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * kBlock + threadIdx.x;
  const int row = blockIdx.y;
  if (col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      const float a = A[(size_t)k * M + row];  // A^T[row][k]
      const float b = B[(size_t)col * K + k];  // B^T[k][col]
      acc += a * b;
    }
    C[(size_t)row * N + col] = acc;
  }
}

// kfuse: in  A float[K][M]
// kfuse: in  B float[N][K]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  M=2048 K=8192 N=4096
// kfuse: check M=33 K=77 N=129
// kfuse: check M=3 K=5 N=1
extern "C" void matmul_with_transposed_both(const float* A, const float* B, float* C, int M,
                                            int K, int N, cudaStream_t stream) {
  dim3 grid((N + kBlock - 1) / kBlock, M);
  matmul_tt<<<grid, kBlock, 0, stream>>>(A, B, C, M, K, N);
}
