// serial: dot: out[0] = sum of x[i] * y[i] (plain C)
// kind: reduction
// expect: parallel

// kfuse: in x float[n]
// kfuse: in y float[n]
// kfuse: out out float[1]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1048576
// kfuse: check n=1001
void dot(int n, const float *x, const float *y, float *out) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i)
    acc += x[i] * y[i];
  out[0] = acc;
}
