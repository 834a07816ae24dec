// serial: quad_shift: iteration i writes a[i+1] = 0.5 a[i]^2 + b[i], reading what iteration i-1 wrote
// kind: refuse
// expect: refuse: a[i+1] written by iteration i is read as a[i] by iteration i+1 (flow dependence, distance 1) through a quadratic
#include <cuda_runtime.h>

__global__ void quad_shift_serial(int n, const float *b, float *a) {
  for (int i = 0; i < n; ++i)
    a[i + 1] = a[i] * a[i] * 0.5f + b[i];
}

// kfuse: in b float[n]
// kfuse: inout a float[n+1]
// kfuse: init b uniform(-0.5,0.5)
// kfuse: init a uniform(-1,1)
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void quad_shift(const float *b, float *a, int n, cudaStream_t stream) {
  quad_shift_serial<<<1, 1, 0, stream>>>(n, b, a);
}
