// serial: matmul: C = A B for A m x k and B k x n, three loops with a scalar accumulator
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void matmul_serial(int m, int n, int k, const float *A, const float *B, float *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p)
        acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}

// kfuse: in A float[m][k]
// kfuse: in B float[k][n]
// kfuse: out C float[m][n]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune m=100 n=100 k=100
// kfuse: check m=37 n=53 k=29
extern "C" void matmul(const float *A, const float *B, float *C, int m, int n, int k,
                       cudaStream_t stream) {
  matmul_serial<<<1, 1, 0, stream>>>(m, n, k, A, B, C);
}
