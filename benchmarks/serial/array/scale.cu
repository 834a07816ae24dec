// serial: scale: y[i] = a * x[i]
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void scale_serial(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i];
}

// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: tune n=1048576 a=3.0
// kfuse: check n=1001 a=-0.25
extern "C" void scale(const float *x, float *y, int n, float a, cudaStream_t stream) {
  scale_serial<<<1, 1, 0, stream>>>(n, a, x, y);
}
