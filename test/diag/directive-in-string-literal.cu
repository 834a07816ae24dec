// Directive-looking lines inside string literals are text, not directives: a raw string
// spanning lines, and a string continued with backslash-newline. Nor is a line that a
// line comment ending in a backslash runs onto.
// RUN: rm -f %t.out
// RUN: %kfuse %s --passes= -o %t.out 2>&1 | FileCheck %s --allow-empty --implicit-check-not=error:
// RUN: cmp %s %t.out

#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

const char* usage = R"doc(
// kfuse: in  x float[N]
// kfuse: tune N=1024 alpha=2.0
)doc";

const char* more = "\
// kfuse: out y float[N]\n\
";

// This note runs on to the next line \
// kfuse: check N=7 alpha=1
