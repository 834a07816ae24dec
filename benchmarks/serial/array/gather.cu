// serial: gather: y[i] = x[idx[i]] through an int index buffer
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void gather_serial(int n, int m, const float *x, const int *idx, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = x[idx[i]];
}

// kfuse: in x float[m]
// kfuse: in idx int32[n]
// kfuse: out y float[n]
// kfuse: init idx int(0,m)
// kfuse: assume m >= 1
// kfuse: tune n=131072 m=65536
// kfuse: check n=1001 m=37
extern "C" void gather(const float *x, const int *idx, float *y, int n, int m, cudaStream_t stream) {
  gather_serial<<<1, 1, 0, stream>>>(n, m, x, idx, y);
}
