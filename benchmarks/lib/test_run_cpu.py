"""End-to-end test of benchmarks/run on the CPU (`--device cpu`, a test-only mode), with
host-only stand-ins for CUDA programs (benchmarks/lib/testdata) built by a fake nvcc.

Exercises everything but the GPU itself: discovery, the contract reader, builds and their
cache, the worker process and its protocol, ctypes calls with typed scalars, inout and
integer buffers, verification (a program that leaves an element unwritten fails; one
that aborts its process is retried without it), kfuse outputs (header lines, a changed
signature), resuming, and benchmarks/report on the result. The times it produces are CPU
times of toy programs, thrown away with the temporary folder.

Needs torch and a C++ compiler; skipped otherwise (the GPU machine has both).

Run: python3 -m unittest discover benchmarks/lib
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
TESTDATA = os.path.join(HERE, "testdata")


def have_torch():
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


@unittest.skipUnless(have_torch() and shutil.which("c++"), "needs torch and a C++ compiler")
class RunOnCpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="kfuse-run-test-")
        cls.out = os.path.join(cls.dir, "results.jsonl")
        cls.cmd = [sys.executable, os.path.join(BENCH, "run"),
                   "--corpus", os.path.join(TESTDATA, "corpus"),
                   "--kfuse-dir", os.path.join(TESTDATA, "kfuse"),
                   "--device", "cpu", "--nvcc", os.path.join(TESTDATA, "fake_nvcc.py"),
                   "--out", cls.out, "--cache", os.path.join(cls.dir, "cache"),
                   "--no-compile", "--rep-budget-s", "0.02", "--min-reps", "5", "--jobs", "2",
                   "--commit", "test-commit", "--seed", "7"]
        cls.first = subprocess.run(cls.cmd, capture_output=True, text=True, timeout=600)
        cls.records = {}
        with open(cls.out) as f:
            for line in f:
                r = json.loads(line)
                if r["type"] == "problem":
                    cls.records[r["problem"]] = r

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_the_run_succeeds_and_prints_a_table(self):
        self.assertEqual(self.first.returncode, 0, self.first.stdout + self.first.stderr)
        self.assertIn("problem", self.first.stdout)
        self.assertIn("figures over every problem", self.first.stdout)
        self.assertEqual(len(self.records), 6)

    def test_a_correct_program_and_its_kfuse_output(self):
        r = self.records["level1/001_scale_add"]
        self.assertEqual(r["status"], "ok")
        self.assertTrue(r["verify"]["ref"]["pass"])
        self.assertTrue(r["verify"]["kfuse"]["pass"])
        # 2 seeds on the tune binding and 2 on the check binding
        self.assertEqual(len(r["verify"]["ref"]["runs"]), 4)
        self.assertEqual(r["seeds"], [7 + 1000, 7 + 1001])
        for v in ("ref", "kfuse", "eager"):
            self.assertGreater(r["timing"][v]["ms"], 0)
            self.assertGreaterEqual(r["timing"][v]["per_binding"][0]["reps"], 5)
        self.assertEqual(r["kfuse"]["applied"], ["// kfuse-applied: fuse scale+add (test data)",
                                                 "// kfuse-applied: vectorize width=4 (test data)"])
        self.assertEqual(r["floor"]["bytes"], 4 * (64 * 33 + 33 + 64 * 33))
        self.assertIn("kfuse_vs_ref", r["speedup"])
        self.assertEqual(r["meta"]["commit"], "test-commit")

    def test_a_flop_count_and_a_cuda_error_t_entry(self):
        r = self.records["level1/002_small_matmul"]
        self.assertTrue(r["verify"]["ref"]["pass"])
        self.assertEqual(r["floor"]["flops"], 2 * 48 * 64 * 40)
        self.assertIn("changed the signature", r["verify"]["kfuse"]["error"])

    def test_an_unwritten_element_fails(self):
        r = self.records["level1/003_half_written"]
        self.assertFalse(r["verify"]["ref"]["pass"])
        self.assertEqual(r["verify"]["ref"]["runs"][0]["buffers"]["y"]["nan_mismatch"], 1)
        self.assertGreater(r["timing"]["ref"]["ms"], 0)   # still timed, and flagged

    def test_a_crash_is_recorded_and_the_rest_measured(self):
        r = self.records["level1/004_crashes"]
        self.assertEqual(r["attempts"][0]["status"], "crash")
        self.assertEqual(r["attempts"][0]["variant"], "ref")
        self.assertFalse(r["verify"]["ref"]["pass"])
        self.assertGreater(r["timing"]["eager"]["ms"], 0)

    def test_a_contract_error_is_recorded(self):
        r = self.records["level1/005_bad_annotation"]
        self.assertEqual(r["status"], "contract-error")
        self.assertIn("005_bad_annotation.cu:4:", r["error"])

    def test_inout_integer_output_and_default_stream(self):
        r = self.records["level2/001_accumulate_count"]
        self.assertTrue(r["verify"]["ref"]["pass"], json.dumps(r["verify"])[:2000])
        self.assertEqual(r["stream"], "legacy-default")
        bufs = r["verify"]["ref"]["runs"][0]["buffers"]
        self.assertEqual(bufs["pos"]["mismatches"], 0)
        self.assertEqual(bufs["acc"]["rtol"], 1e-5)       # the file's tol line

    def test_another_gpu_than_the_required_one_measures_nothing(self):
        other = os.path.join(self.dir, "other.jsonl")
        cmd = self.cmd + ["--out", other, "--require-gpu", "H200"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("the GPU is cpu (test device), not the H200 that --require-gpu asks for", r.stdout + r.stderr)
        self.assertFalse(os.path.exists(other) and os.path.getsize(other) > 0)

    def test_zz_resume_skips_everything_and_report_reads_it(self):
        again = subprocess.run(self.cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertIn("6 already measured, 0 to run", again.stdout)
        md = os.path.join(self.dir, "report.md")
        rep = subprocess.run([sys.executable, os.path.join(BENCH, "report"), self.out, "-o", md,
                              "--plot", os.path.join(self.dir, "speedup.svg")],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        with open(md) as f:
            self.assertIn("level1/001_scale_add", f.read())


if __name__ == "__main__":
    unittest.main()
