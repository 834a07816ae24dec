// serial: gemver: rank-2 update A += u1 v1^T + u2 v2^T, then x += beta * A^T y + z, then w += alpha * A x
// kind: linalg
// expect: parallel
// port: ports/gemver.cu
#include <cuda_runtime.h>

__global__ void gemver_serial(float *A, const float *u1, const float *v1, const float *u2,
                              const float *v2, float *w, float *x, const float *y, const float *z,
                              int n, float alpha, float beta) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      A[i * n + j] = A[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += A[j * n + i] * y[j];
    x[i] = x[i] + beta * s + z[i];
  }
  for (int i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += A[i * n + j] * x[j];
    w[i] = w[i] + alpha * s;
  }
}

// kfuse: inout A float[n][n]
// kfuse: in u1 float[n]
// kfuse: in v1 float[n]
// kfuse: in u2 float[n]
// kfuse: in v2 float[n]
// kfuse: inout w float[n]
// kfuse: inout x float[n]
// kfuse: in y float[n]
// kfuse: in z float[n]
// kfuse: tune n=500 alpha=1.5 beta=1.2
// kfuse: check n=37 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void gemver(float *A, const float *u1, const float *v1, const float *u2,
                       const float *v2, float *w, float *x, const float *y, const float *z, int n,
                       float alpha, float beta, cudaStream_t stream) {
  gemver_serial<<<1, 1, 0, stream>>>(A, u1, v1, u2, v2, w, x, y, z, n, alpha, beta);
}
