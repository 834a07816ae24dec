// serial: outer: A[i][j] = x[i] * y[j], the outer product of x (m) and y (n)
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void outer_serial(int m, int n, const float *x, const float *y, float *A) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      A[i * n + j] = x[i] * y[j];
}

// kfuse: in x float[m]
// kfuse: in y float[n]
// kfuse: out A float[m][n]
// kfuse: tune m=1024 n=1024
// kfuse: check m=37 n=53
extern "C" void outer(const float *x, const float *y, float *A, int m, int n, cudaStream_t stream) {
  outer_serial<<<1, 1, 0, stream>>>(m, n, x, y, A);
}
