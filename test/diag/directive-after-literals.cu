// The scan for directives follows C's lexical rules only as far as it must: a block
// comment that closes, a quote in a character literal, a digit separator and a comment
// opener inside a string leave the directives below them directives.
// RUN: %kfuse %s --emit=model -o - 2>&1 | FileCheck %s --implicit-check-not=error:

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

/* A block comment that closes
   before the code below. */
const char quote = '"';
const long big = 1'000'000;
const char* opener = "/*";
const char* raw = R"x(a ")" inside)x";

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
// CHECK: param x: in float[N]
// CHECK: param y: out float[N]
// CHECK: tune N=1024 alpha=2
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
