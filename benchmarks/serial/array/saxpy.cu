// serial: saxpy: y[i] = a * x[i] + y[i], in place
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void saxpy_serial(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

// kfuse: in x float[n]
// kfuse: inout y float[n]
// kfuse: tune n=1048576 a=2.0
// kfuse: check n=1001 a=-0.5
extern "C" void saxpy(const float *x, float *y, int n, float a, cudaStream_t stream) {
  saxpy_serial<<<1, 1, 0, stream>>>(n, a, x, y);
}
