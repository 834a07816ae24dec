// serial: compact: copies the positive x[i] to the front of y in order and writes how many there were to count
// kind: refuse
// expect: refuse: the output position count is read and incremented by every iteration that keeps an element (loop-carried scalar used as a store index)
#include <cuda_runtime.h>

__global__ void compact_serial(int n, const float *x, float *y, int *count) {
  int c = 0;
  for (int i = 0; i < n; ++i)
    if (x[i] > 0.0f) {
      y[c] = x[i];
      c = c + 1;
    }
  count[0] = c;
}

// kfuse: in x float[n]
// kfuse: inout y float[n]
// kfuse: out count int32[1]
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void compact(const float *x, float *y, int *count, int n, cudaStream_t stream) {
  compact_serial<<<1, 1, 0, stream>>>(n, x, y, count);
}
