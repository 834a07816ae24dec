// KernelBench level 1, problem 12: Matmul_with_diagonal_matrices_
// diag(A) @ B, written (as the HEAD reference does) as the broadcast A.unsqueeze(1) * B.
#include <cuda_runtime.h>

__global__ void row_scale(const float* __restrict__ d, const float* __restrict__ B,
                          float* __restrict__ C, int N, int M) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  if (j < M) C[(size_t)i * M + j] = d[i] * B[(size_t)i * M + j];
}

// kfuse: in  A float[N]
// kfuse: in  B float[N][M]
// kfuse: out C float[N][M]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tune  N=4096 M=4096
// kfuse: check N=33 M=129
// kfuse: check N=7 M=1
extern "C" void matmul_with_diagonal_matrices(const float* A, const float* B, float* C, int N,
                                              int M, cudaStream_t stream) {
  dim3 grid((M + 255) / 256, N);
  row_scale<<<grid, 256, 0, stream>>>(A, B, C, N, M);
}
