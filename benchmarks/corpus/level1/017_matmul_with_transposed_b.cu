// KernelBench level 1, problem 17: Matmul_with_transposed_B
// C (M x N) = A @ B^T, A stored (M x K), B stored (N x K). Naive: one thread per output.
#include <cuda_runtime.h>

__global__ void matmul_nt(const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C, int M, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  const float* a = A + (size_t)m * K;
  const float* b = B + (size_t)n * K;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[k] * b[k];
  C[(size_t)m * N + n] = acc;
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[N][K]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  M=2048 K=8192 N=4096
// kfuse: check M=33 K=77 N=129
// kfuse: check M=1 K=3 N=7
extern "C" void matmul_with_transposed_b(const float* A, const float* B, float* C, int M, int K,
                                         int N, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul_nt<<<grid, block, 0, stream>>>(A, B, C, M, K, N);
}
