void f(int n, float *x) { x[0] = n; }
