// serial: bicg: the two products of a BiCG step in one sweep over A, s = A^T * r and q = A * p
// kind: linalg
// expect: parallel
// port: ports/bicg.cu
#include <cuda_runtime.h>

__global__ void bicg_serial(const float *A, const float *r, const float *p, float *s, float *q,
                            int n, int m) {
  for (int j = 0; j < m; ++j)
    s[j] = 0.0f;
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < m; ++j) {
      s[j] += r[i] * A[i * m + j];
      acc += A[i * m + j] * p[j];
    }
    q[i] = acc;
  }
}

// kfuse: in A float[n][m]
// kfuse: in r float[n]
// kfuse: in p float[m]
// kfuse: out s float[m]
// kfuse: out q float[n]
// kfuse: tune n=700 m=740
// kfuse: check n=37 m=41
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void bicg(const float *A, const float *r, const float *p, float *s, float *q, int n,
                     int m, cudaStream_t stream) {
  bicg_serial<<<1, 1, 0, stream>>>(A, r, p, s, q, n, m);
}
