// KernelBench level 1, problem 4: Matrix_vector_multiplication_
// C (M x 1) = A (M x K) @ B (K x 1). One block per row, shared-memory tree reduction.
// M * K exceeds 2^31 at the HEAD shape, so offsets are 64-bit.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void gemv_row_block(const float* __restrict__ A, const float* __restrict__ x,
                               float* __restrict__ y, long K) {
  __shared__ float partial[THREADS];
  const long row = blockIdx.x;
  const float* a = A + row * K;
  float acc = 0.0f;
  for (long k = threadIdx.x; k < K; k += THREADS) {
    acc += a[k] * x[k];
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[row] = partial[0];
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][1]
// kfuse: out C float[M][1]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  M=2048 K=1048576
// kfuse: check M=33 K=1001
// kfuse: check M=7 K=3
extern "C" cudaError_t matrix_vector_multiplication(const float* A, const float* B, float* C,
                                                    long M, long K, cudaStream_t stream) {
  gemv_row_block<<<(unsigned int)M, THREADS, 0, stream>>>(A, B, C, K);
  return cudaGetLastError();
}
