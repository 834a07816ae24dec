// serial: ludcmp: solve A x = b by a row-by-row (Doolittle) LU factorization without pivoting, then forward and back substitution
// kind: solver
// expect: parallel
#include <cuda_runtime.h>

// A is M with 2n added to the diagonal (strictly diagonally dominant for M in [-1, 1]). Row i
// of L needs the entries of row i left of it, one after another; row i of U (j >= i) then
// needs only row i of L and the rows above, so its entries are independent of each other.
__global__ void ludcmp_serial(const float *M, const float *b, float *LU, float *y, float *x,
                              int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      LU[i * n + j] = M[i * n + j];
  for (int i = 0; i < n; ++i)
    LU[i * n + i] += 2.0f * n;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) {
      float w = LU[i * n + j];
      for (int k = 0; k < j; ++k)
        w -= LU[i * n + k] * LU[k * n + j];
      LU[i * n + j] = w / LU[j * n + j];
    }
    for (int j = i; j < n; ++j) {
      float w = LU[i * n + j];
      for (int k = 0; k < i; ++k)
        w -= LU[i * n + k] * LU[k * n + j];
      LU[i * n + j] = w;
    }
  }
  for (int i = 0; i < n; ++i) {
    float w = b[i];
    for (int j = 0; j < i; ++j)
      w -= LU[i * n + j] * y[j];
    y[i] = w;
  }
  for (int ii = 0; ii < n; ++ii) {
    int i = n - 1 - ii;
    float w = y[i];
    for (int j = i + 1; j < n; ++j)
      w -= LU[i * n + j] * x[j];
    x[i] = w / LU[i * n + i];
  }
}

// kfuse: in M float[n][n]
// kfuse: in b float[n]
// kfuse: out LU float[n][n]
// kfuse: out y float[n]
// kfuse: out x float[n]
// kfuse: init M uniform(-1,1)
// kfuse: tune n=110
// kfuse: check n=37
// x is of the order of b / (2n), so the absolute floor is set well below it
// kfuse: tol rtol=1e-3 atol=1e-7
extern "C" void ludcmp(const float *M, const float *b, float *LU, float *y, float *x, int n,
                       cudaStream_t stream) {
  ludcmp_serial<<<1, 1, 0, stream>>>(M, b, LU, y, x, n);
}
