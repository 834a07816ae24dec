"""Writes argv[1]: an entry whose comment lines, and a line of code, hold Latin-1 bytes
that are no UTF-8."""
import sys

SRC = b"""#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // k\xe9rnel
  if (i < n) y[i] = alpha * x[i];
}

// Scale, caf\xe9 style (kfuse: sees this line, which holds a 'k' and no UTF-8).
// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1024 alpha=2.0
extern "C" void scale(const float* x, float* y, int N, float alpha, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, alpha);
}
"""
with open(sys.argv[1], "wb") as f:
    f.write(SRC)
