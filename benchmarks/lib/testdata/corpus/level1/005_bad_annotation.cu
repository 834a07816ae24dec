// Host-only stand-in (benchmark tests): an annotation error (Q is not a scalar).
typedef void *cudaStream_t;

// kfuse: in  x float[Q]
// kfuse: out y float[N]
// kfuse: tune N=10
extern "C" void bad_annotation(const float *x, float *y, int N, cudaStream_t s) {}
