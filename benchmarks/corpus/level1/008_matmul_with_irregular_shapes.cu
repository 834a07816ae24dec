// KernelBench level 1, problem 8: Matmul_with_irregular_shapes_
// C (M x N) = A (M x K) @ B (K x N), non power-of-two sizes. 1D launch over the output,
// int64_t indices, one thread per output element.
#include <cuda_runtime.h>

__global__ void matmul_flat(const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C, int64_t M, int64_t K, int64_t N) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < M * N) {
    const int64_t i = idx / N;
    const int64_t j = idx % N;
    float acc = 0.0f;
    for (int64_t p = 0; p < K; ++p) acc += A[i * K + p] * B[p * N + j];
    C[idx] = acc;
  }
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tune  M=8205 K=2949 N=5921
// kfuse: check M=33 K=77 N=129
// kfuse: check M=5 K=3 N=1
extern "C" void matmul_with_irregular_shapes(const float* A, const float* B, float* C,
                                             int64_t M, int64_t K, int64_t N,
                                             cudaStream_t stream) {
  const int64_t total = M * N;
  const int threads = 256;
  const int64_t blocks = (total + threads - 1) / threads;
  matmul_flat<<<(unsigned int)blocks, threads, 0, stream>>>(A, B, C, M, K, N);
}
