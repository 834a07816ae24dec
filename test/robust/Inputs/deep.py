"""Writes DIR/{paren,neg,add,land}.cu: an entry whose annotation holds one expression
nested or chained 100000 deep."""
import os
import sys

HEAD = """#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

"""
ENTRY = """// kfuse: out y float[N]
// kfuse: tune N=1024
extern "C" void scale(const float* x, float* y, int N, cudaStream_t stream) {
  scale_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}
"""
n = 100000
cases = {
    "paren": "// kfuse: in x float[" + "(" * n + "N" + ")" * n + "]\n",
    "neg": "// kfuse: in x float[" + "-" * (2 * n) + "N]\n",
    "add": "// kfuse: in x float[" + "+".join(["1"] * n) + "]\n",
    "land": "// kfuse: in x float[N]\n// kfuse: assume " + " && ".join(["N > 0"] * n) + "\n",
}
for name, ann in cases.items():
    with open(os.path.join(sys.argv[1], name + ".cu"), "w") as f:
        f.write(HEAD + ann + ENTRY)
