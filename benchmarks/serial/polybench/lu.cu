// serial: lu: in-place LU factorization without pivoting (right-looking) of a diagonally dominant matrix
// kind: solver
// expect: parallel
// port: ports/lu.cu
#include <cuda_runtime.h>

// LU starts as M with 2n added to the diagonal (strictly diagonally dominant for M in
// [-1, 1], so no pivoting is needed) and ends holding U on and above the diagonal and
// L's multipliers below it.
__global__ void lu_serial(const float *M, float *LU, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      LU[i * n + j] = M[i * n + j];
  for (int i = 0; i < n; ++i)
    LU[i * n + i] += 2.0f * n;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i) {
      float l = LU[i * n + k] / LU[k * n + k];
      LU[i * n + k] = l;
      for (int j = k + 1; j < n; ++j)
        LU[i * n + j] -= l * LU[k * n + j];
    }
}

// kfuse: in M float[n][n]
// kfuse: out LU float[n][n]
// kfuse: init M uniform(-1,1)
// kfuse: tune n=110
// kfuse: check n=37
extern "C" void lu(const float *M, float *LU, int n, cudaStream_t stream) {
  lu_serial<<<1, 1, 0, stream>>>(M, LU, n);
}
