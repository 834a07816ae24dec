// KernelBench level 1, problem 7: Matmul_with_small_K_dimension_
// C (M x N) = A (M x K) @ B (K x N) with K small: output-write dominated. Naive template kernel.
#include <cuda_runtime.h>

template <int BX, int BY>
__global__ void gemm_nn(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * BX + threadIdx.x;
  const int row = blockIdx.y * BY + threadIdx.y;
  if (row >= M || col >= N) return;
  float sum = 0.f;
  for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = sum;
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: assume M <= 2147483647 / N
// kfuse: tune  M=32768 K=64 N=32768
// kfuse: check M=33 K=7 N=129
// kfuse: check M=129 K=1 N=3
extern "C" void matmul_with_small_k_dimension(const float* A, const float* B, float* C, int M,
                                              int K, int N, cudaStream_t stream) {
  constexpr int BX = 32, BY = 8;
  dim3 grid((N + BX - 1) / BX, (M + BY - 1) / BY);
  gemm_nn<BX, BY><<<grid, dim3(BX, BY), 0, stream>>>(A, B, C, M, K, N);
}
