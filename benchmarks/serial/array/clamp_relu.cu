// serial: clamp_relu: per element, r[i] = relu(x[i]) and c[i] = x[i] clamped to [lo, hi], with if/else
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void clamp_relu_serial(int n, float lo, float hi, const float *x, float *r, float *c) {
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    if (v > 0.0f)
      r[i] = v;
    else
      r[i] = 0.0f;
    float w = v;
    if (w < lo)
      w = lo;
    if (w > hi)
      w = hi;
    c[i] = w;
  }
}

// kfuse: in x float[n]
// kfuse: out r float[n]
// kfuse: out c float[n]
// kfuse: assume lo <= hi
// kfuse: tune n=1048576 lo=-0.5 hi=0.75
// kfuse: check n=1001 lo=-1.0 hi=1.0
extern "C" void clamp_relu(const float *x, float *r, float *c, int n, float lo, float hi,
                           cudaStream_t stream) {
  clamp_relu_serial<<<1, 1, 0, stream>>>(n, lo, hi, x, r, c);
}
