"""deep_host.py write OUT.cu DEPTH: a program whose entry nests its launch in DEPTH host
conditions. deep_host.py levels MODEL.json: how deep the first entry's steps nest."""
import json
import sys

if sys.argv[1] == "write":
    path, depth = sys.argv[2], int(sys.argv[3])
    body = "k<<<1, 32, 0, s>>>(y, N);\n"
    for i in range(depth):
        body = "if (N > %d) {\n%s}\n" % (i, body)
    with open(path, "w") as f:
        f.write('''#include <cuda_runtime.h>
__global__ void k(float* y, int n) { if (threadIdx.x < n) y[threadIdx.x] = 1.0f; }
// kfuse: out y float[N]
// kfuse: tune N=32
extern "C" void e(float* y, int N, cudaStream_t s) {
%s}
''' % body)
else:
    with open(sys.argv[2]) as f:
        steps = json.load(f)["entries"][0]["steps"]
    levels = 0
    while steps:
        levels += 1
        steps = steps[0].get("body")
    print("levels", levels)
