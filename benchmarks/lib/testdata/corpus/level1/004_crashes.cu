// Host-only stand-in for a CUDA program (benchmark tests; see ../../README.md).
// A program that crashes its process (as a bad host pointer would).
#include <stdlib.h>
typedef void *cudaStream_t;

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune  N=10
extern "C" void crashes(const float *x, float *y, int N, cudaStream_t s) {
  (void)x; (void)y; (void)N; (void)s;
  abort();
}
