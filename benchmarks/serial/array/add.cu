// serial: add: z[i] = x[i] + y[i]
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void add_serial(int n, const float *x, const float *y, float *z) {
  for (int i = 0; i < n; ++i)
    z[i] = x[i] + y[i];
}

// kfuse: in x float[n]
// kfuse: in y float[n]
// kfuse: out z float[n]
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void add(const float *x, const float *y, float *z, int n, cudaStream_t stream) {
  add_serial<<<1, 1, 0, stream>>>(n, x, y, z);
}
