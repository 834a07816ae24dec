"""Writes argv[1]: an entry whose directives each hold runs of 10000 blanks: between the
parts of the prefix, between a directive's words, around '=', inside extents and init
bounds, and at the end of the line."""
import sys

SRC = """#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

//@kfuse@:@in@x@float[@N@]@
// kfuse: out y float[N]
// kfuse: init x@uniform(@0@,@1@)@
// kfuse: tune N=1024@alpha@=@2.0
// kfuse: tol rtol=1e-3@atol=1e-4@
// kfuse: assume@N@>@0@
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
"""
with open(sys.argv[1], "w") as f:
    f.write(SRC.replace("@", " " * 10000))
