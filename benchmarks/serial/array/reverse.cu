// serial: reverse: y[i] = x[n - 1 - i]
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void reverse_serial(int n, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = x[n - 1 - i];
}

// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void reverse(const float *x, float *y, int n, cudaStream_t stream) {
  reverse_serial<<<1, 1, 0, stream>>>(n, x, y);
}
