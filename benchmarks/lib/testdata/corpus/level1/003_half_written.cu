// Host-only stand-in for a CUDA program (benchmark tests; see ../../README.md).
// A wrong program: it leaves the last element of its output unwritten.
typedef void *cudaStream_t;

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune  N=100
// kfuse: check N=7
extern "C" void half_written(const float *x, float *y, int N, cudaStream_t s) {
  (void)s;
  for (int i = 0; i < N - 1; ++i) y[i] = 2.f * x[i];
}
