// serial: strided_copy: y[i] = x[i * s], every s-th element of x
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void strided_copy_serial(int n, int s, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i * s];
}

// kfuse: in x float[n*s]
// kfuse: out y float[n]
// kfuse: assume s >= 1
// kfuse: tune n=262144 s=4
// kfuse: check n=1001 s=3
// kfuse: check n=77 s=1
extern "C" void strided_copy(const float *x, float *y, int n, int s, cudaStream_t stream) {
  strided_copy_serial<<<1, 1, 0, stream>>>(n, s, x, y);
}
