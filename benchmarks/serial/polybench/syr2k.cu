// serial: syr2k: symmetric rank-2k update of the lower triangle, C = alpha * (A * B^T + B * A^T) + beta * C
// kind: linalg
// expect: parallel
// port: ports/syr2k.cu
#include <cuda_runtime.h>

__global__ void syr2k_serial(const float *A, const float *B, float *C, int n, int m, float alpha,
                             float beta) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i + 1; ++j) {
      float s = 0.0f;
      for (int k = 0; k < m; ++k)
        s += A[i * m + k] * B[j * m + k] + B[i * m + k] * A[j * m + k];
      C[i * n + j] = beta * C[i * n + j] + alpha * s;
    }
}

// kfuse: in A float[n][m]
// kfuse: in B float[n][m]
// kfuse: inout C float[n][n]
// kfuse: tune n=100 m=100 alpha=1.5 beta=1.2
// kfuse: check n=37 m=29 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void syr2k(const float *A, const float *B, float *C, int n, int m, float alpha,
                      float beta, cudaStream_t stream) {
  syr2k_serial<<<1, 1, 0, stream>>>(A, B, C, n, m, alpha, beta);
}
