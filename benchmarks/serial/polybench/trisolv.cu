// serial: trisolv: forward substitution L * x = b by columns, L lower triangular with 2n added to its diagonal
// kind: solver
// expect: parallel
// port: ports/trisolv.cu
#include <cuda_runtime.h>

// Column-oriented: once x[j] is final, its multiple of column j is taken off every later x[i].
// The diagonal used is L[j][j] + 2n, which keeps the system diagonally dominant for L in [-1, 1].
__global__ void trisolv_serial(const float *L, const float *b, float *x, int n) {
  for (int i = 0; i < n; ++i)
    x[i] = b[i];
  for (int j = 0; j < n; ++j) {
    x[j] = x[j] / (L[j * n + j] + 2.0f * n);
    for (int i = j + 1; i < n; ++i)
      x[i] -= L[i * n + j] * x[j];
  }
}

// kfuse: in L float[n][n]
// kfuse: in b float[n]
// kfuse: out x float[n]
// kfuse: init L uniform(-1,1)
// kfuse: tune n=1400
// kfuse: check n=37
// x is of the order of b / (2n), so the absolute floor is set well below it
// kfuse: tol rtol=1e-3 atol=1e-7
extern "C" void trisolv(const float *L, const float *b, float *x, int n, cudaStream_t stream) {
  trisolv_serial<<<1, 1, 0, stream>>>(L, b, x, n);
}
