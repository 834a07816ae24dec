// serial: running_max: y[i] = max of x[0..i], y[i] = fmaxf(y[i-1], x[i])
// kind: scan
// expect: parallel
#include <cuda_runtime.h>
#include <math.h>

__global__ void running_max_serial(int n, const float *x, float *y) {
  y[0] = x[0];
  for (int i = 1; i < n; ++i)
    y[i] = fmaxf(y[i - 1], x[i]);
}

// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: assume n >= 1
// kfuse: tune n=1048576
// kfuse: check n=1001
// kfuse: check n=1
extern "C" void running_max(const float *x, float *y, int n, cudaStream_t stream) {
  running_max_serial<<<1, 1, 0, stream>>>(n, x, y);
}
