// serial: jacobi_1d: tsteps time steps of the 3-point average stencil, A -> B then B -> A, ends fixed (plain C)
// kind: stencil
// expect: parallel

// kfuse: inout A float[n]
// kfuse: inout B float[n]
// kfuse: assume n >= 3
// kfuse: tune n=131072 tsteps=4
// kfuse: check n=1001 tsteps=3
void jacobi_1d(int n, int tsteps, float *A, float *B) {
  for (int t = 0; t < tsteps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0f;
    for (int i = 1; i < n - 1; ++i)
      A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0f;
  }
}
