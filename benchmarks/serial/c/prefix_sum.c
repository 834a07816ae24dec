// serial: prefix_sum: inclusive prefix sum, y[0] = x[0], y[i] = y[i-1] + x[i] (plain C)
// kind: scan
// expect: parallel

// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: assume n >= 1
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1048576
// kfuse: check n=1001
void prefix_sum(int n, const float *x, float *y) {
  y[0] = x[0];
  for (int i = 1; i < n; ++i)
    y[i] = y[i - 1] + x[i];
}
