// kfuse-applied: fuse scale+add (test data)
// kfuse-applied: vectorize width=4 (test data)
// kfuse-result: scale_add speedup 1.00x on a test stand-in
// Host-only stand-in for a CUDA program (benchmark tests; see ../../README.md).
typedef void *cudaStream_t;

/* a block comment that mentions extern "C" void not_an_entry(int x) { */

// y = alpha * x + b (b broadcast along rows)
// kfuse: in  x float[N][M]
// kfuse: in  b float[M]
// kfuse: out y float[N][M]
// kfuse: tune  N=64 M=33 alpha=2.5
// kfuse: check N=3 M=5 alpha=-1
// kfuse: init b uniform(-1, 1)
// kfuse: assume N >= 1 && M >= 1
extern "C" void scale_add(const float *__restrict__ x, const float *b, float *y, int N,
                          int M, float alpha, cudaStream_t stream) {
  (void)stream;
  for (long i = 0; i < (long)N * M; ++i) y[i] = alpha * x[i] + b[i % M];
}
