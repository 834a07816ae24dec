// serial: seidel_1d: one in-place Gauss-Seidel sweep, a[i] = (a[i-1] + a[i] + a[i+1]) / 3 for i ascending
// kind: refuse
// expect: refuse: a[i] reads a[i-1] updated by the previous iteration (flow dependence, distance 1)
#include <cuda_runtime.h>

__global__ void seidel_1d_serial(int n, float *a) {
  for (int i = 1; i < n - 1; ++i)
    a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
}

// kfuse: inout a float[n]
// kfuse: assume n >= 3
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void seidel_1d(float *a, int n, cudaStream_t stream) {
  seidel_1d_serial<<<1, 1, 0, stream>>>(n, a);
}
