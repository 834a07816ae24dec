// serial: matvec: y = A x for an m x n row-major matrix A (plain C)
// kind: linalg
// expect: parallel

// kfuse: in A float[m][n]
// kfuse: in x float[n]
// kfuse: out y float[m]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune m=1024 n=1024
// kfuse: check m=37 n=53
void matvec(int m, int n, const float *A, const float *x, float *y) {
  for (int i = 0; i < m; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < n; ++j)
      acc += A[i * n + j] * x[j];
    y[i] = acc;
  }
}
