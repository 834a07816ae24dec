// A scalar passed by reference is not an integer parameter, but it is not a floating one
// either: naming it in an extent must not say it is floating.
// XFAIL reason: kfuse says "'N' is a floating parameter; an extent is an integer
// expression" for 'int &'.
// XFAIL: *
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N]
// CHECK: {{.*}}reference-parameter-message.cu:{{[0-9]+}}:{{[0-9]+}}: error:
// CHECK-NOT: floating parameter
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int& N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
