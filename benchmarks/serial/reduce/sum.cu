// serial: sum: out[0] = sum of x[i]
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>

__global__ void sum_serial(int n, const float *x, float *out) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += x[i];
  out[0] = s;
}

// kfuse: in x float[n]
// kfuse: out out float[1]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void sum(const float *x, float *out, int n, cudaStream_t stream) {
  sum_serial<<<1, 1, 0, stream>>>(n, x, out);
}
