"""Tests of building programs into cached shared libraries (benchmarks/lib/build.py).
Needs nvcc (skipped without it); runs nothing on a GPU.

Run: python3 -m unittest discover benchmarks/lib
"""

import ctypes
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import build  # noqa: E402

SOURCE = r'''#include <cuda_runtime.h>
#include <cublas_v2.h>

__global__ void twice(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: tune N=1000
extern "C" void twice_entry(const float *x, float *y, int N, cudaStream_t s) {
  twice<<<(N + 255) / 256, 256, 0, s>>>(x, y, N);
}
'''


@unittest.skipUnless(build.have_nvcc(), "nvcc not found")
class Build(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kfuse-build-test-")
        self.src = os.path.join(self.dir, "twice.cu")
        with open(self.src, "w") as f:
            f.write(SOURCE)
        self.cache = os.path.join(self.dir, "cache")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_build_then_cache_hit(self):
        r = build.build(self.src, self.cache)
        self.assertTrue(r["ok"], r.get("log"))
        self.assertFalse(r["cached"])
        self.assertIn("-arch=sm_90", r["cmd"])
        self.assertIn("-lcublas", r["cmd"])          # it includes cublas_v2.h
        lib = ctypes.CDLL(r["so"])                   # loading runs no CUDA code
        for symbol in ("twice_entry", "kbench_last_error", "kbench_error_string"):
            self.assertTrue(hasattr(lib, symbol), symbol)
        again = build.build(self.src, self.cache)
        self.assertTrue(again["cached"])
        self.assertEqual(again["so"], r["so"])

    def test_a_changed_source_is_rebuilt(self):
        first = build.build(self.src, self.cache)
        with open(self.src, "a") as f:
            f.write("// changed\n")
        second = build.build(self.src, self.cache)
        self.assertNotEqual(first["so"], second["so"])

    def test_a_failed_build_reports_its_log(self):
        with open(self.src, "a") as f:
            f.write("this is not C++;\n")
        r = build.safe_build(self.src, self.cache)
        self.assertFalse(r["ok"])
        self.assertIsNone(r["so"])
        self.assertIn("error", r["log"])
        self.assertEqual([n for n in os.listdir(self.cache) if n.endswith(".so")], [])


class LinkFlags(unittest.TestCase):
    def test_flags_by_headers(self):
        self.assertEqual(build.link_flags("#include <cuda_runtime.h>\n"), [])
        self.assertIn("-lcublas", build.link_flags("#include <cublas_v2.h>\n"))
        self.assertTrue(any("cudnn" in f for f in build.link_flags("#include <cudnn.h>\n")))


if __name__ == "__main__":
    unittest.main()
