// serial: saxpy: y[i] = a * x[i] + y[i], in place (plain C)
// kind: array
// expect: parallel

// kfuse: in x float[n]
// kfuse: inout y float[n]
// kfuse: tune n=1048576 a=2.0
// kfuse: check n=1001 a=-0.5
void saxpy(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
