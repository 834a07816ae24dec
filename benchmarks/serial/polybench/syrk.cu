// serial: syrk: symmetric rank-k update of the lower triangle, C = alpha * A * A^T + beta * C
// kind: linalg
// expect: parallel
// port: ports/syrk.cu
#include <cuda_runtime.h>

__global__ void syrk_serial(const float *A, float *C, int n, int m, float alpha, float beta) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i + 1; ++j) {
      float s = 0.0f;
      for (int k = 0; k < m; ++k)
        s += A[i * m + k] * A[j * m + k];
      C[i * n + j] = beta * C[i * n + j] + alpha * s;
    }
}

// kfuse: in A float[n][m]
// kfuse: inout C float[n][n]
// kfuse: tune n=110 m=160 alpha=1.5 beta=1.2
// kfuse: check n=37 m=29 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void syrk(const float *A, float *C, int n, int m, float alpha, float beta,
                     cudaStream_t stream) {
  syrk_serial<<<1, 1, 0, stream>>>(A, C, n, m, alpha, beta);
}
