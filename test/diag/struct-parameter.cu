// An entry's parameters are pointers, integer or floating scalars and a stream; a struct
// passed by value is an error at the parameter (once accepted as a scalar of unknown type
// that s=3 bound), and only there: the tune line that binds it is no second mistake.
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

struct Params { int a; };

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0 s=3
// CHECK: {{.*}}struct-parameter.cu:[[@LINE+1]]:{{[0-9]+}}: error: parameter 's' of entry 'scale' has type 'Params'; entry parameters are device pointers to scalars, integer or floating scalars, or a cudaStream_t
extern "C" void scale(const float* x, float* y, int N, float alpha, Params s, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
