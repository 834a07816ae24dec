// KernelBench level 1, problem 10: 3D_tensor_matrix_multiplication
// C (N, M, L) = A (N, M, K) @ B (K, L). One thread per output, 3D grid (z = batch index).
#include <cuda_runtime.h>

__global__ void tensor3d_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int M, int K, int L) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z;
  if (l < L && m < M) {
    const float* a = A + ((size_t)n * M + m) * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * B[(size_t)k * L + l];
    C[((size_t)n * M + m) * L + l] = acc;
  }
}

// kfuse: in  A float[N][M][K]
// kfuse: in  B float[K][L]
// kfuse: out C float[N][M][L]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tune  N=16 M=1024 K=2048 L=768
// kfuse: check N=3 M=33 K=7 L=129
// kfuse: check N=1 M=5 K=65 L=3
extern "C" void tensor_3d_matrix_multiplication(const float* A, const float* B, float* C, int N,
                                                int M, int K, int L, cudaStream_t stream) {
  dim3 block(64, 4);
  dim3 grid((L + 63) / 64, (M + 3) / 4, N);
  tensor3d_matmul<<<grid, block, 0, stream>>>(A, B, C, M, K, L);
}
