#!/usr/bin/env python3
"""Writes deliberately broken copies of a few .par.cu files to build/serial/emu/selftest/out,
to show that the harness catches each kind of error (run by benchmarks/serial/emu/selftest/run)."""
import os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SRC = os.path.join(ROOT, "build", "serial", "out")
DST = os.path.join(ROOT, "build", "serial", "emu", "selftest", "out")
os.makedirs(DST, exist_ok=True)
MUT = {
    # wrong result: the pivot row is processed too
    "polybench_lu.cu.par.cu": ("for (int i = k + 1 + (blockIdx.x", "for (int i = k + (blockIdx.x"),
    # missing barrier in the tree reduction: a race inside a block
    "reduce_mean_var.cu.par.cu": ("kf_sh_s[threadIdx.x] = kf_sh_s[threadIdx.x] + kf_sh_s[threadIdx.x + kf_w];\n    }\n    __syncthreads();",
                                  "kf_sh_s[threadIdx.x] = kf_sh_s[threadIdx.x] + kf_sh_s[threadIdx.x + kf_w];\n    }\n"),
    # writes one element past the end
    "scan_exclusive_sum.cu.par.cu": ("  if (kf_k < (long long)(n) - (long long)(1))\n    y[(1) + kf_k] = kf_sh[threadIdx.x];",
                                     "  if (kf_k < (long long)(n))\n    y[(1) + kf_k] = kf_sh[threadIdx.x];"),
    # leaves the last column unwritten
    "polybench_lu.cu.par.cu#2": ("for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < n; j += gridDim.x * blockDim.x) {\n      LU[i * n + j] = M[i * n + j];",
                                 "for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < n - 1; j += gridDim.x * blockDim.x) {\n      LU[i * n + j] = M[i * n + j];"),
    # in-place update that reads a neighbour written by another thread: order dependent
    "polybench_jacobi_1d.cu.par.cu": ("B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);", "A[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);"),
    # no grid-stride: correct only while the grid covers the loop (caught by KF_CAP runs)
    "array_add.cu.par.cu": ("i < n; i += gridDim.x * blockDim.x) {\n    z[i]", "i < n; i += 1 << 30) {\n    z[i]"),
    # a lost update: the histogram's additions not atomic (same result in every sequential order)
    "reduce_histogram.cu.par.cu": ("atomicAdd(&hist[bin[i]], (int)(1));", "hist[bin[i]] += 1;"),
    # a benign-looking race: every thread of every block writes z[0] (the same value)
    "array_add.cu.par.cu#2": ("    z[i] = x[i] + y[i];\n  }\n}", "    z[i] = x[i] + y[i];\n    z[0] = x[0] + y[0];\n  }\n}"),
}
for key, (old, new) in MUT.items():
    fn = key.split("#")[0]
    path = os.path.join(DST, fn)
    src = open(path).read() if os.path.exists(path) and "#" in key else open(os.path.join(SRC, fn)).read()
    assert src.count(old) >= 1, (key, old)
    head, sep, tail = src.rpartition(old)  # the last occurrence: in the generated kernels
    src = head + new + tail
    open(path, "w").write(src)
    print("mutated", key)
