// serial: gramschmidt: QR factorization A = Q * R by modified Gram-Schmidt, A's columns orthogonalized in place
// kind: solver
// expect: parallel
#include <cuda_runtime.h>
#include <math.h>

// m is added to A[i][i] first, so the columns are far from dependent whatever the draw.
// R's strictly lower triangle is set to zero; A ends holding R[k][k] * Q[:, k] in column k.
__global__ void gramschmidt_serial(float *A, float *R, float *Q, int m, int n) {
  for (int i = 0; i < n; ++i)
    A[i * n + i] += (float)m;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < k; ++j)
      R[k * n + j] = 0.0f;
  for (int k = 0; k < n; ++k) {
    float nrm = 0.0f;
    for (int i = 0; i < m; ++i)
      nrm += A[i * n + k] * A[i * n + k];
    float rkk = sqrtf(nrm);
    R[k * n + k] = rkk;
    for (int i = 0; i < m; ++i)
      Q[i * n + k] = A[i * n + k] / rkk;
    for (int j = k + 1; j < n; ++j) {
      float s = 0.0f;
      for (int i = 0; i < m; ++i)
        s += Q[i * n + k] * A[i * n + j];
      R[k * n + j] = s;
      for (int i = 0; i < m; ++i)
        A[i * n + j] -= Q[i * n + k] * s;
    }
  }
}

// kfuse: inout A float[m][n]
// kfuse: out R float[n][n]
// kfuse: out Q float[m][n]
// kfuse: assume m >= n && n >= 1
// kfuse: tune m=100 n=70
// kfuse: check m=41 n=29
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void gramschmidt(float *A, float *R, float *Q, int m, int n, cudaStream_t stream) {
  gramschmidt_serial<<<1, 1, 0, stream>>>(A, R, Q, m, n);
}
