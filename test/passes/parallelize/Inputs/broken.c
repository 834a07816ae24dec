// kfuse: in x float[n]
// kfuse: tune n=16
void f(int n, const float *x) { n = ; }
