// serial: matvec_t: y = A^T x for an m x n matrix A, accumulated row by row into y
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void matvec_t_serial(int m, int n, const float *A, const float *x, float *y) {
  for (int j = 0; j < n; ++j)
    y[j] = 0.0f;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      y[j] += A[i * n + j] * x[i];
}

// kfuse: in A float[m][n]
// kfuse: in x float[m]
// kfuse: out y float[n]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune m=1024 n=1024
// kfuse: check m=37 n=53
extern "C" void matvec_t(const float *A, const float *x, float *y, int m, int n, cudaStream_t stream) {
  matvec_t_serial<<<1, 1, 0, stream>>>(m, n, A, x, y);
}
