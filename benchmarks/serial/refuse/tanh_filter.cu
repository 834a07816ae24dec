// serial: tanh_filter: in-place nonlinear filter y[i] = tanhf(y[i-1] + x[i]) over an inout buffer
// kind: refuse
// expect: refuse: y[i] reads y[i-1] written by the previous iteration (flow dependence, distance 1) through tanhf
#include <cuda_runtime.h>
#include <math.h>

__global__ void tanh_filter_serial(int n, const float *x, float *y) {
  for (int i = 1; i < n; ++i)
    y[i] = tanhf(y[i - 1] + x[i]);
}

// kfuse: in x float[n]
// kfuse: inout y float[n]
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void tanh_filter(const float *x, float *y, int n, cudaStream_t stream) {
  tanh_filter_serial<<<1, 1, 0, stream>>>(n, x, y);
}
