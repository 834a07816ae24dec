// KernelBench level 1, problem 9: Tall_skinny_matrix_multiplication_
// C (M x M) = A (M x N) @ B (N x M), N small. Grid-stride loop over the output, long indices.
#include <cuda_runtime.h>

__global__ void tall_skinny_mm(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, long M, long N) {
  const long total = M * M;
  const long stride = (long)gridDim.x * blockDim.x;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
    const long r = t / M;
    const long c = t - r * M;
    float acc = 0.f;
    for (long k = 0; k < N; ++k) acc = fmaf(A[r * N + k], B[k * M + c], acc);
    C[t] = acc;
  }
}

// kfuse: in  A float[M][N]
// kfuse: in  B float[N][M]
// kfuse: out C float[M][M]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tune  M=32768 N=32
// kfuse: check M=129 N=7
// kfuse: check M=33 N=1
extern "C" void tall_skinny_matrix_multiplication(const float* A, const float* B, float* C,
                                                  long M, long N, cudaStream_t stream) {
  const int threads = 512;
  const int blocks = 132 * 8;
  tall_skinny_mm<<<blocks, threads, 0, stream>>>(A, B, C, M, N);
}
