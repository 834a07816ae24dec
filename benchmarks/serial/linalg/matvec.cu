// serial: matvec: y = A x for an m x n matrix A
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void matvec_serial(int m, int n, const float *A, const float *x, float *y) {
  for (int i = 0; i < m; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < n; ++j)
      acc += A[i * n + j] * x[j];
    y[i] = acc;
  }
}

// kfuse: in A float[m][n]
// kfuse: in x float[n]
// kfuse: out y float[m]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune m=1024 n=1024
// kfuse: check m=37 n=53
extern "C" void matvec(const float *A, const float *x, float *y, int m, int n, cudaStream_t stream) {
  matvec_serial<<<1, 1, 0, stream>>>(m, n, A, x, y);
}
