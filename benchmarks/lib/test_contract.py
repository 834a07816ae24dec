"""Tests of the benchmark's contract reader (benchmarks/lib/contract.py), on made-up files
and on every corpus file present (benchmarks/corpus/level{1,2,3}, extra).

Run: python3 -m unittest discover benchmarks/lib
"""

import ast
import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import contract  # noqa: E402

CORPUS = os.path.join(os.path.dirname(HERE), "corpus")

EXAMPLE = r'''#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
}

// kfuse: in  x    float[B][K]
// kfuse: in  w    float[N][K]
// kfuse: in  bias float[N]
// kfuse: out out  float[B][N]
// kfuse: tune  B=512 K=4096 N=4096
// kfuse: check B=3 K=77 N=129
extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
}
'''


def parse(text, name="t.cu"):
    return contract.parse_file(name, text)


def entry_with(directives, signature, body="{}"):
    """A file with one entry: `directives` (lines after '// kfuse: ') above `signature`."""
    lines = ["// kfuse: " + d for d in directives]
    return "\n".join(["#include <cuda_runtime.h>", ""] + lines + ['extern "C" ' + signature + " " + body, ""])


class ContractExample(unittest.TestCase):
    """The contract's own example (spec/input-format.md)."""

    def test_entry_and_signature(self):
        entries = parse(EXAMPLE)
        self.assertEqual(list(entries), ["linear_relu"])
        e = entries["linear_relu"]
        self.assertEqual(e.ret, "void")
        self.assertEqual([(p.name, p.kind) for p in e.params],
                         [("x", "pointer"), ("w", "pointer"), ("bias", "pointer"), ("out", "pointer"),
                          ("B", "scalar"), ("K", "scalar"), ("N", "scalar"), ("stream", "stream")])
        self.assertTrue(e.has_stream)
        self.assertEqual([p.ctypes_name for p in e.scalars], ["c_int"] * 3)

    def test_buffers_bindings_and_shapes(self):
        e = parse(EXAMPLE)["linear_relu"]
        self.assertEqual([(b.name, b.role, b.type) for b in e.buffers],
                         [("x", "in", "float"), ("w", "in", "float"), ("bias", "in", "float"),
                          ("out", "out", "float")])
        self.assertEqual(e.tunes[0].values, {"B": 512, "K": 4096, "N": 4096})
        self.assertEqual(e.checks[0].values, {"B": 3, "K": 77, "N": 129})
        self.assertEqual(e.buffers[0].shape(e.checks[0].values), [3, 77])
        self.assertEqual(e.buffers[3].shape(e.tunes[0].values), [512, 4096])
        self.assertEqual(e.buffers[0].init(e.tunes[0].values), ("normal",))
        self.assertEqual(e.tolerance(e.buffers[3]), (1e-4, 1e-5))


class Directives(unittest.TestCase):
    SIG = "void f(const float* x, float* y, int N, float alpha, cudaStream_t s)"

    def test_init_tol_assume_and_typed_values(self):
        text = entry_with(["in x float[N + 1]", "out y float[(N + 1) / 2][2]",
                           "init x uniform(-1, N / 2)", "tune N=100 alpha=2",
                           "check N=7 alpha=-1.5e-3", "assume N % 2 == 0 || N < 10",
                           "tol rtol=1e-3 atol=1e-4"], self.SIG)
        e = parse(text)["f"]
        t = e.tunes[0].values
        self.assertEqual(t, {"N": 100, "alpha": 2.0})
        self.assertIsInstance(t["alpha"], float)         # typed per the C signature
        self.assertEqual(e.checks[0].values["alpha"], -1.5e-3)
        self.assertEqual(e.buffers[0].init(t), ("uniform", -1, 50))
        self.assertEqual(e.buffers[1].shape(e.checks[0].values), [4, 2])
        self.assertEqual(e.tol, (1e-3, 1e-4))
        self.assertIsNone(e.check_assumes(t))

    def test_type_defaults(self):
        text = entry_with(["in a int32[N]", "in b uint8[N]", "in c bool[N]", "in d half[N]",
                           "inout e bfloat16[N]", "init a int(0, N)", "init d positive", "tune N=4"],
                          "void f(const int* a, const unsigned char* b, const bool* c, const __half* d, __nv_bfloat16* e, int N)")
        e = parse(text)["f"]
        env = e.tunes[0].values
        self.assertEqual([b.init(env) for b in e.buffers],
                         [("int", 0, 4), ("int", 0, 100), ("int", 0, 2), ("uniform", 0.1, 2.0), ("normal",)])
        self.assertEqual(e.tolerance(e.buffers[3]), (1e-2, 1e-2))
        self.assertIsNone(e.tolerance(e.buffers[0]))      # integers compare exactly
        self.assertFalse(e.has_stream)

    def test_comments_among_directives_and_scalar_types(self):
        text = ("// The entry.\n// kfuse: in x double[M]\n// a remark\n// kfuse: out y double[M]\n"
                "//kfuse: tune M=3 n=5\n"
                'extern "C" cudaError_t g(const double *__restrict__ x, double *y, int64_t M, size_t n) { return cudaSuccess; }\n')
        e = parse(text)["g"]
        self.assertEqual(e.ret, "cudaError_t")
        self.assertEqual([p.ctypes_name for p in e.scalars], ["c_int64", "c_size_t"])
        self.assertEqual(e.tunes[0].values, {"M": 3, "n": 5})

    def test_unannotated_entries_and_declarations_are_skipped(self):
        text = ('extern "C" void helper(int n);\n'
                '/* extern "C" void commented(int n) { } */\n'
                'extern "C" void plain(float* p, int n) { }\n' + EXAMPLE)
        self.assertEqual(list(parse(text)), ["linear_relu"])
        bare = contract.parse_file("t.cu", text, require_annotations=False)
        self.assertEqual(list(bare), ["plain", "linear_relu"])

    def test_errors_have_file_line_col(self):
        sig = self.SIG
        cases = [
            (["in x float[Q]", "out y float[N]", "tune N=1 alpha=1"], "t.cu:3:22: error: unknown scalar 'Q'"),
            (["in x float[N]", "tune N=1 alpha=1"], "no in/out/inout line"),
            (["in x float[N]", "out y float[N]", "tune N=1"], "leaves alpha unbound"),
            (["in x float[N]", "out y float[N]", "tune N=1.5 alpha=1"], "integer parameter"),
            (["in x float[N]", "out y float[N]", "tune N=(1+2) alpha=1"], "not a C literal"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1 M=2"], "not a scalar parameter"),
            (["in x float[N]", "in x float[N]", "out y float[N]", "tune N=1 alpha=1"], "already has a role"),
            (["in x floatt[N]", "out y float[N]", "tune N=1 alpha=1"], "unknown type"),
            (["in x float[N]", "out y float[N]"], "no tune line"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1", "frobnicate"], "unknown kfuse directive"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1", "assume N > 1"], "violates"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1", "init x gauss"], "unknown distribution"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1", "init z normal"], "not a buffer"),
            (["in x float[N - 2]", "out y float[N]", "tune N=1 alpha=1"], "negative extent"),
            (["in x float[N / 0]", "out y float[N]", "tune N=1 alpha=1"], "division by zero"),
            (["in x float[N]", "out y float[N]", "tune N=1 alpha=1", "tol rtol=x"], "tol"),
        ]
        for directives, message in cases:
            with self.subTest(directives=directives):
                with self.assertRaises(contract.ContractError) as cm:
                    parse(entry_with(directives, sig))
                self.assertIn(message, str(cm.exception))
                self.assertRegex(str(cm.exception), r"^t\.cu:\d+:\d+: error: ")

    def test_unsupported_scalar_type(self):
        with self.assertRaises(contract.ContractError):
            parse(entry_with(["tune s=1"], "void f(struct thing s)"))


class Helpers(unittest.TestCase):
    def test_needed_libraries(self):
        self.assertEqual(contract.needed_libraries('#include <cublas_v2.h>\n'), ["cublas"])
        self.assertEqual(contract.needed_libraries('#include "cublasLt.h"\n#include <cudnn.h>\n'),
                         ["cublas", "cublasLt", "cudnn"])
        self.assertEqual(contract.needed_libraries('// #include <cudnn.h>\n#include <cuda_fp16.h>\n'), [])

    def test_header_lines(self):
        text = "// kfuse-applied: fuse a+b\n// kfuse-result: 1.2x\n// other\nint x;\n"
        self.assertEqual(contract.header_lines(text), ["// kfuse-applied: fuse a+b", "// kfuse-result: 1.2x"])

    def test_same_signature(self):
        a = parse(EXAMPLE)["linear_relu"]
        b = contract.parse_file("o.cu", EXAMPLE.replace("int B, int K", "long B, int K"), require_annotations=False)["linear_relu"]
        self.assertTrue(contract.same_signature(a, a))
        self.assertFalse(contract.same_signature(a, b))


def twin_entries(py_path):
    """The entry names a twin declares, read without importing it (no torch needed):
    its ENTRY string, or the keys of an ENTRIES dict (files with several entries)."""
    with open(py_path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), py_path)
    names = []
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        targets = [getattr(t, "id", None) for t in node.targets]
        if "ENTRY" in targets and isinstance(node.value, ast.Constant):
            names.append(node.value.value)
        if "ENTRIES" in targets and isinstance(node.value, ast.Dict):
            names += [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return names


class CorpusFiles(unittest.TestCase):
    """Every .cu file in the corpus parses, and every extent, init bound and assume
    evaluates at every tune and check binding."""

    def files(self):
        found = []
        for sub in ("level1", "level2", "level3", "extra"):
            found += sorted(glob.glob(os.path.join(CORPUS, sub, "*.cu")))
        return found

    def test_every_corpus_file(self):
        files = self.files()
        if not files:
            self.skipTest("no corpus files yet under %s" % CORPUS)
        for path in files:
            with self.subTest(file=os.path.relpath(path, CORPUS)):
                entries = contract.parse_file(path)
                self.assertTrue(entries, "no annotated entry")
                for e in entries.values():
                    for b in e.tunes + e.checks:
                        self.assertIsNone(e.check_assumes(b.values))
                        for buf in e.buffers:
                            shape = buf.shape(b.values)
                            self.assertTrue(all(x >= 0 for x in shape), (buf.name, shape))
                            buf.init(b.values)
                py = path[:-3] + ".py"
                if "extra" not in path:
                    self.assertTrue(os.path.exists(py), "no twin")
                if os.path.exists(py):
                    names = twin_entries(py)
                    if names or len(entries) != 1:
                        self.assertTrue(names, "the twin names no ENTRY")
                    for name in names:
                        self.assertIn(name, entries, "the twin's ENTRY names no annotated entry")

    def test_test_data(self):
        """The benchmark's own test stand-ins parse, except the one meant to fail."""
        for path in sorted(glob.glob(os.path.join(HERE, "testdata", "*", "level*", "*.cu"))):
            with self.subTest(file=os.path.basename(path)):
                if "bad_annotation" in path:
                    with self.assertRaises(contract.ContractError):
                        contract.parse_file(path)
                else:
                    self.assertTrue(contract.parse_file(path, require_annotations="kfuse/" not in path))


if __name__ == "__main__":
    unittest.main()
