// serial: trmm: B = alpha * A^T * B in place, A unit lower triangular (its diagonal and upper triangle not read)
// kind: linalg
// expect: parallel
// port: ports/trmm.cu
#include <cuda_runtime.h>

// Row i of the result needs rows k > i of B, so rows are finished top to bottom
// before they are overwritten; the columns j are independent.
__global__ void trmm_serial(const float *A, float *B, int m, int n, float alpha) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = B[i * n + j];
      for (int k = i + 1; k < m; ++k)
        s += A[k * m + i] * B[k * n + j];
      B[i * n + j] = alpha * s;
    }
}

// kfuse: in A float[m][m]
// kfuse: inout B float[m][n]
// kfuse: tune m=120 n=136 alpha=1.5
// kfuse: check m=37 n=29 alpha=-0.5
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void trmm(const float *A, float *B, int m, int n, float alpha, cudaStream_t stream) {
  trmm_serial<<<1, 1, 0, stream>>>(A, B, m, n, alpha);
}
