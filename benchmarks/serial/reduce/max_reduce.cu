// serial: max_reduce: out[0] = the largest x[i], found with an if
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>

__global__ void max_reduce_serial(int n, const float *x, float *out) {
  float m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  out[0] = m;
}

// kfuse: in x float[n]
// kfuse: out out float[1]
// kfuse: assume n >= 1
// kfuse: tune n=1048576
// kfuse: check n=1001
// kfuse: check n=1
extern "C" void max_reduce(const float *x, float *out, int n, cudaStream_t stream) {
  max_reduce_serial<<<1, 1, 0, stream>>>(n, x, out);
}
