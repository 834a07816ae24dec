// serial: gemm: C = alpha A B + beta C in place, A m x k, B k x n
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void gemm_serial(int m, int n, int k, float alpha, float beta, const float *A,
                            const float *B, float *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p)
        acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}

// kfuse: in A float[m][k]
// kfuse: in B float[k][n]
// kfuse: inout C float[m][n]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune m=100 n=100 k=100 alpha=1.5 beta=0.5
// kfuse: check m=37 n=53 k=29 alpha=-0.75 beta=2.0
extern "C" void gemm(const float *A, const float *B, float *C, int m, int n, int k, float alpha,
                     float beta, cudaStream_t stream) {
  gemm_serial<<<1, 1, 0, stream>>>(m, n, k, alpha, beta, A, B, C);
}
