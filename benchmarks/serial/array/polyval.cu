// serial: polyval: y[i] = c[0] + c[1] x[i] + ... + c[7] x[i]^7 by Horner's rule per element
// kind: array
// expect: parallel
#include <cuda_runtime.h>

#define DEGREE 7

__global__ void polyval_serial(int n, const float *coef, const float *x, float *y) {
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    float p = coef[DEGREE];
    for (int k = 0; k < DEGREE; ++k)
      p = p * v + coef[DEGREE - 1 - k];
    y[i] = p;
  }
}

// kfuse: in coef float[8]
// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: init coef uniform(-0.5,0.5)
// kfuse: init x uniform(-1,1)
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void polyval(const float *coef, const float *x, float *y, int n, cudaStream_t stream) {
  polyval_serial<<<1, 1, 0, stream>>>(n, coef, x, y);
}
