// serial: sin_recurrence: x[0] = a[0], x[i] = sinf(x[i-1]) + a[i]
// kind: refuse
// expect: refuse: x[i] reads x[i-1] (flow dependence, distance 1) through a nonlinear sinf
#include <cuda_runtime.h>
#include <math.h>

__global__ void sin_recurrence_serial(int n, const float *a, float *x) {
  x[0] = a[0];
  for (int i = 1; i < n; ++i)
    x[i] = sinf(x[i - 1]) + a[i];
}

// kfuse: in a float[n]
// kfuse: out x float[n]
// kfuse: assume n >= 1
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void sin_recurrence(const float *a, float *x, int n, cudaStream_t stream) {
  sin_recurrence_serial<<<1, 1, 0, stream>>>(n, a, x);
}
