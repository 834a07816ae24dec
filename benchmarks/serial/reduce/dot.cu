// serial: dot: out[0] = sum of x[i] * y[i]
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>

__global__ void dot_serial(int n, const float *x, const float *y, float *out) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i)
    acc += x[i] * y[i];
  out[0] = acc;
}

// kfuse: in x float[n]
// kfuse: in y float[n]
// kfuse: out out float[1]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void dot(const float *x, const float *y, float *out, int n, cudaStream_t stream) {
  dot_serial<<<1, 1, 0, stream>>>(n, x, y, out);
}
