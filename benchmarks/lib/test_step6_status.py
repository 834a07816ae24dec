"""benchmarks/step6-status on synthetic results (no GPU): which record of a problem counts,
which problems are in issue #10's set, and the figures it prints."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
STATUS = os.path.join(os.path.dirname(HERE), "step6-status")


def run_line(date):
    return {"type": "run", "date": date, "commit": "c-" + date[:10]}


def problem(name, date, kfuse, eager, compile_ms=None, verified=True):
    timing = {"kfuse": {"ms": kfuse}, "eager": {"ms": eager}}
    if compile_ms:
        timing["compile"] = {"ms": compile_ms}
    return {"type": "problem", "problem": name, "meta": {"date": date, "commit": "c-" + date[:10]},
            "timing": timing, "verify": {"kfuse": {"pass": verified}}}


class Step6Status(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kfuse-step6-test-")
        self.a = os.path.join(self.dir, "a.jsonl")
        self.b = os.path.join(self.dir, "b.jsonl")
        with open(self.a, "w") as f:
            for r in (run_line("2026-12-01T00:00:00Z"),
                      problem("level2/012_gemm_multiply_leaky_relu", "2026-12-01T00:00:00Z", 4.0, 2.0,
                              2.0),
                      problem("level1/001_square_matmul", "2026-12-01T00:00:00Z", 2.0, 1.0, 1.0),
                      problem("level1/019_relu", "2026-12-01T00:00:00Z", 1.0, 1.0, 1.0)):
                f.write(json.dumps(r) + "\n")
        with open(self.b, "w") as f:
            for r in (run_line("2026-12-02T00:00:00Z"),
                      # the later record of 012 counts: 2.0 / 1.0 eager and compile
                      problem("level2/012_gemm_multiply_leaky_relu", "2026-12-02T00:00:00Z", 1.0, 2.0,
                              2.0),
                      # a later output the verifier failed does not
                      problem("level1/001_square_matmul", "2026-12-03T00:00:00Z", 0.1, 1.0, 1.0,
                              verified=False)):
                f.write(json.dumps(r) + "\n")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_latest_verified_record_of_the_set(self):
        out = subprocess.run([sys.executable, STATUS, self.a, self.b], capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        text = out.stdout
        self.assertIn("measured with a verified kfuse output, ", text)
        self.assertIn("- geomean kfuse/eager: 1.00x over 2; kfuse/compile: 1.00x over 2", text)
        self.assertIn("- below 0.9x eager: level1/001_square_matmul\n", text)
        row = "| level2/012_gemm_multiply_leaky_relu | 1 | 2 | 2 | 2.00x | 2.00x | 2026-12-02 | c-2026-12-02 |"
        self.assertIn(row, text)
        self.assertIn("| level1/001_square_matmul | 2 | 1 | 1 | 0.50x | 0.50x | 2026-12-01 | c-2026-12-01 |", text)
        self.assertNotIn("level1/019_relu", text)                 # not in the set
        self.assertNotIn("level1/005_matrix_scalar", text)        # by a scalar: not a GEMM
        self.assertIn("level3/031_vision_attention", text.split("- not measured: ")[1])


if __name__ == "__main__":
    unittest.main()
