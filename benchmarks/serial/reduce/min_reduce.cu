// serial: min_reduce: out[0] = the smallest x[i], found with fminf
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>

__global__ void min_reduce_serial(int n, const float *x, float *out) {
  float m = FLT_MAX;
  for (int i = 0; i < n; ++i)
    m = fminf(m, x[i]);
  out[0] = m;
}

// kfuse: in x float[n]
// kfuse: out out float[1]
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void min_reduce(const float *x, float *out, int n, cudaStream_t stream) {
  min_reduce_serial<<<1, 1, 0, stream>>>(n, x, out);
}
