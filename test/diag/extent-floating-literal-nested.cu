// A floating literal nested deep in an extent is still found and named: the check once
// walked a 64-entry stack and, past 62 levels, missed it ("extent 1 of 'x' (...) is
// negative on the tune binding").
// RUN: rm -f %t.out
// RUN: not %kfuse %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

// kfuse: in  x float[N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(N+(1.5))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))]
// CHECK: {{.*}}extent-floating-literal-nested.cu:[[@LINE-1]]:{{[0-9]+}}: error: floating literal in an integer expression
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
