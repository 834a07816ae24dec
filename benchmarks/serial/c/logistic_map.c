// serial: logistic_map: x[i] = r * x[i-1] * (1 - x[i-1]) in place, from the given x[0] (plain C)
// kind: refuse
// expect: refuse: x[i] reads x[i-1] written by the previous iteration (flow dependence, distance 1) through a quadratic

// kfuse: inout x float[n]
// kfuse: init x uniform(0,1)
// kfuse: assume r >= 0 && r <= 4
// kfuse: tune n=1048576 r=3.7
// kfuse: check n=1001 r=2.5
void logistic_map(int n, float r, float *x) {
  for (int i = 1; i < n; ++i)
    x[i] = r * x[i - 1] * (1.0f - x[i - 1]);
}
