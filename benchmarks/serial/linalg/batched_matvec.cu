// serial: batched_matvec: y[b] = A[b] x[b] for a batch of m x n matrices, batch loop outermost
// kind: linalg
// expect: parallel
#include <cuda_runtime.h>

__global__ void batched_matvec_serial(int batch, int m, int n, const float *A, const float *x,
                                      float *y) {
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < m; ++i) {
      float acc = 0.0f;
      for (int j = 0; j < n; ++j)
        acc += A[(b * m + i) * n + j] * x[b * n + j];
      y[b * m + i] = acc;
    }
}

// kfuse: in A float[batch][m][n]
// kfuse: in x float[batch][n]
// kfuse: out y float[batch][m]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune batch=8 m=352 n=368
// kfuse: check batch=3 m=37 n=53
extern "C" void batched_matvec(const float *A, const float *x, float *y, int batch, int m, int n,
                               cudaStream_t stream) {
  batched_matvec_serial<<<1, 1, 0, stream>>>(batch, m, n, A, x, y);
}
