// serial: cholesky: right-looking Cholesky factorization L * L^T of a diagonally dominant symmetric matrix
// kind: solver
// expect: parallel
// port: ports/cholesky.cu
#include <cuda_runtime.h>
#include <math.h>

// The matrix factored is the symmetric one whose lower triangle is M's, with 2n added to
// the diagonal: with M in [-1, 1] it is strictly diagonally dominant, so positive definite.
// L's upper triangle is set to zero.
__global__ void cholesky_serial(const float *M, float *L, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j)
      L[i * n + j] = M[i * n + j];
    L[i * n + i] = M[i * n + i] + 2.0f * n;
    for (int j = i + 1; j < n; ++j)
      L[i * n + j] = 0.0f;
  }
  for (int k = 0; k < n; ++k) {
    float d = sqrtf(L[k * n + k]);
    L[k * n + k] = d;
    for (int i = k + 1; i < n; ++i)
      L[i * n + k] = L[i * n + k] / d;
    for (int j = k + 1; j < n; ++j)
      for (int i = j; i < n; ++i)
        L[i * n + j] -= L[i * n + k] * L[j * n + k];
  }
}

// kfuse: in M float[n][n]
// kfuse: out L float[n][n]
// kfuse: init M uniform(-1,1)
// kfuse: tune n=180
// kfuse: check n=37
extern "C" void cholesky(const float *M, float *L, int n, cudaStream_t stream) {
  cholesky_serial<<<1, 1, 0, stream>>>(M, L, n);
}
