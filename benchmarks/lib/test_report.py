"""Tests of the figures and of benchmarks/report, on SYNTHETIC records made up here.

The records below are invented numbers chosen so that every figure can be worked out by
hand; they are written to a temporary folder only, marked `"synthetic": true`, and are
never results.

Run: python3 -m unittest discover benchmarks/lib
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import figures  # noqa: E402
import render  # noqa: E402

REPORT = os.path.join(os.path.dirname(HERE), "report")


def synthetic_problem(name, ref, kfuse, eager, compile_, kfuse_pass=True, floor=None, applied=()):
    """A made-up problem record in benchmarks/run's layout (None time = that variant failed)."""
    times = {"ref": ref, "kfuse": kfuse, "eager": eager, "compile": compile_}
    rec = {"type": "problem", "synthetic": True, "problem": "level1/" + name, "level": 1,
           "name": name, "status": "ok", "run_id": "synthetic-run",
           "variants": ["ref", "kfuse", "eager", "compile"],
           "verify": {"ref": {"pass": True, "runs": []}, "kfuse": {"pass": kfuse_pass, "runs": []}},
           "timing": {v: ({"ms": t, "p10_ms": t * 0.9, "p90_ms": t * 1.1} if t else {"error": "synthetic failure"})
                      for v, t in times.items()},
           "kfuse": {"applied": ["// kfuse-applied: " + a for a in applied],
                     "result_lines": ["// kfuse-result: synthetic"]},
           "meta": {"run_id": "synthetic-run", "gpu": "SYNTHETIC (no GPU)", "date": "2000-01-01T00:00:00Z"}}
    if floor:
        rec["floor"] = {"floor_ms": floor}
        rec["fraction_of_floor"] = {v: floor / t for v, t in times.items() if t}
    return rec


def synthetic_records():
    run = {"type": "run", "synthetic": True, "run_id": "synthetic-run", "gpu": "SYNTHETIC (no GPU)",
           "date": "2000-01-01T00:00:00Z", "copy_GBps": 1000.0, "fp32_tflops": 10.0}
    older = synthetic_problem("002_b", 99.0, 99.0, 99.0, 99.0)   # overridden by the later 002_b
    return [run, older,
            synthetic_problem("001_a", 2.0, 1.0, 2.0, 1.5, floor=0.5, applied=("fuse a+b",)),
            synthetic_problem("002_b", 4.0, 4.0, 2.0, 8.0, floor=1.0),
            synthetic_problem("003_c", 1.0, 0.5, 1.0, 1.0, kfuse_pass=False, floor=0.1),
            synthetic_problem("004_d", 3.0, 1.0, 3.0, None, floor=0.9)]


class Figures(unittest.TestCase):
    def test_by_hand(self):
        s = figures.summarize(synthetic_records())
        self.assertEqual(s["problems"], 4)
        k = s["subjects"]["kfuse"]
        self.assertEqual((k["attempted"], k["correct"]), (4, 3))
        # vs eager: correct problems 001 (2x), 002 (0.5x), 004 (3x); 4 have an eager time
        e = k["vs"]["eager"]
        self.assertAlmostEqual(e["geomean"], 3 ** (1 / 3))
        self.assertEqual((e["n_pairs"], e["n_baseline"]), (3, 4))
        self.assertEqual(e["fast"], {1.0: 0.5, 1.5: 0.5, 2.0: 0.25})   # 2.0x is not > 2
        # vs compile: 004 has no compile time; correct pairs 001 (1.5x), 002 (2x)
        c = k["vs"]["compile"]
        self.assertAlmostEqual(c["geomean"], math.sqrt(3))
        self.assertEqual(c["n_baseline"], 3)
        self.assertEqual(c["fast"], {1.0: 2 / 3, 1.5: 1 / 3, 2.0: 0.0})
        # vs ref: 001 2x, 002 1x, 004 3x
        self.assertAlmostEqual(k["vs"]["ref"]["geomean"], 6 ** (1 / 3))
        self.assertAlmostEqual(k["median_fraction_of_floor"], 0.5)     # of 0.5, 0.25, 0.9
        r = s["subjects"]["ref"]
        self.assertNotIn("ref", r["vs"])
        self.assertEqual(r["correct"], 4)

    def test_by_level(self):
        recs = synthetic_records()
        recs[-1] = dict(recs[-1], problem="level2/004_d", level=2)
        lv = figures.by_level(recs)
        self.assertEqual(list(lv), ["level1", "level2"])
        # level1 vs eager: 001 (2x) and 002 (0.5x) correct, 003 failed: 3 with an eager time
        e1 = lv["level1"]["subjects"]["kfuse"]["vs"]["eager"]
        self.assertAlmostEqual(e1["geomean"], 1.0)
        self.assertEqual((e1["n_pairs"], e1["n_baseline"]), (2, 3))
        self.assertAlmostEqual(lv["level2"]["subjects"]["kfuse"]["vs"]["eager"]["geomean"], 3.0)
        md = render.markdown(recs)
        self.assertIn("### kfuse output by level", md)
        self.assertIn("| level1 | eager | 1.00x | 33% | 33% | 0% | 2 | 3 |", md)
        self.assertIn("| level2 | eager | 3.00x | 100% | 100% | 100% | 1 | 1 |", md)
        self.assertNotIn("by level", render.markdown(synthetic_records()))   # one level: no table

    def test_a_failed_kfuse_output_is_never_fast(self):
        recs = [synthetic_problem("001_a", 1.0, 0.01, 1.0, 1.0, kfuse_pass=False)]
        s = figures.summarize(recs)["subjects"]["kfuse"]["vs"]["eager"]
        self.assertEqual(s["fast"][1.0], 0.0)
        self.assertIsNone(s["geomean"])

    def test_no_kfuse_outputs(self):
        recs = [synthetic_problem("001_a", 1.0, None, 2.0, 2.0)]
        for r in recs:
            r["variants"].remove("kfuse")
            del r["verify"]["kfuse"], r["timing"]["kfuse"]
        s = figures.summarize(recs)
        self.assertNotIn("kfuse", s["subjects"])
        self.assertAlmostEqual(s["subjects"]["ref"]["vs"]["eager"]["geomean"], 2.0)
        self.assertIn("ref vs eager", render.plot_series(recs)[1])

    def test_repeat_by_hand(self):
        # again/first for ref: 001_a 2.18/2.0 = 1.09, 002_b 4.04/4.0 = 1.01, 004_d 3.0/3.0 = 1;
        # 003_c is not in the repeat, 005_e is not in the first run.
        again = [synthetic_problem("001_a", 2.18, None, 2.0, 1.5),
                 synthetic_problem("002_b", 4.04, None, 2.0, 8.0),
                 synthetic_problem("004_d", 3.0, None, 3.0, None),
                 synthetic_problem("005_e", 1.0, None, 1.0, 1.0)]
        rep = figures.repeat(synthetic_records(), again)
        r = rep["ref"]
        self.assertEqual(r["n"], 3)
        self.assertAlmostEqual(r["median"], 1.01)
        self.assertEqual(r["max"][1], "level1/001_a")
        self.assertAlmostEqual(r["within"][0.02], 2 / 3)
        self.assertAlmostEqual(r["within"][0.10], 1.0)
        self.assertEqual([p for p, _ in r["outside"]], ["level1/001_a"])
        self.assertNotIn("kfuse", rep)             # no kfuse time in the repeat
        self.assertEqual(rep["compile"]["n"], 2)   # 004_d has no compile time in either
        md = "\n".join(render.repeat_markdown(rep, "first.jsonl", "again.jsonl"))
        self.assertIn("| ref | 3 | 1.010 | 67% | 67% | 100% |", md)

    def test_text_table(self):
        text = render.text_table(synthetic_records())
        self.assertIn("level1/003_c", text)
        self.assertIn("FAIL", text)
        self.assertIn("fuse a+b", text)
        lines = text.split("\n")
        self.assertEqual(len(lines), 2 + 4)
        self.assertTrue(lines[2].startswith("level1/001_a"))    # sorted by problem id


class ReportScript(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kfuse-report-test-")
        self.results = os.path.join(self.dir, "SYNTHETIC-results.jsonl")
        with open(self.results, "w") as f:
            for r in synthetic_records():
                f.write(json.dumps(r) + "\n")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_markdown_and_plot(self):
        md = os.path.join(self.dir, "report.md")
        svg = os.path.join(self.dir, "speedup.svg")
        out = subprocess.run([sys.executable, REPORT, self.results, "-o", md, "--plot", svg],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("vs eager", out.stdout)
        with open(md) as f:
            text = f.read()
        self.assertIn("| eager | 1.44x | 50% | 50% | 25% | 3 | 4 |", text)
        self.assertIn("| compile | 1.73x | 67% | 33% | 0% | 2 | 3 |", text)
        self.assertIn("| level1/001_a | pass | pass | 2 | 1 | 2 | 1.5 |", text)
        self.assertIn("| level1/003_c | pass | FAIL |", text)
        self.assertIn("fuse a+b", text)
        self.assertIn("// kfuse-result: synthetic", text)
        self.assertIn("![speedup per problem](speedup.svg)", text)
        self.assertIn("SYNTHETIC (no GPU)", text)
        self.assertNotIn("99", text.split("## Problems")[1].split("## kfuse")[0])  # overridden record
        xml.dom.minidom.parse(svg)       # well-formed

    def test_hand_written_svg(self):
        labels, series = render.plot_series(synthetic_records())
        doc = render.svg(labels, series)
        dom = xml.dom.minidom.parseString(doc)
        # one point per correct problem and baseline: eager 3 (001, 002, 004), compile 2
        self.assertEqual(len(dom.getElementsByTagName("circle")), 3 + 2 + len(series))
        self.assertIn("level1/004_d", doc)

    def test_search_curves(self):
        curves = os.path.join(self.dir, "curves.csv")
        with open(curves, "w") as f:
            f.write("measurements,rule,random,ranker\n1,0.9000,0.6000,0.9500\n2,0.9600,0.8000,1.0000\n"
                    "3,1.0000,0.9000,1.0000\n")
        svg = os.path.join(self.dir, "search.svg")
        md = os.path.join(self.dir, "report.md")
        out = subprocess.run([sys.executable, REPORT, self.results, "-o", md, "--curves", curves,
                              "--curves-plot", svg], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(md) as f:
            text = f.read()
        self.assertIn("## Search curves", text)
        self.assertIn("| 1 | 0.900 | 0.600 | 0.950 |", text)
        self.assertIn("![search curves](search.svg)", text)
        dom = xml.dom.minidom.parse(svg)
        self.assertEqual(len(dom.getElementsByTagName("polyline")), 3)
        # a curve without the ranker's column (no level to learn from): two lines
        rows = [{"measurements": 1, "rule": 0.9, "random": 0.5, "ranker": None},
                {"measurements": 2, "rule": 1.0, "random": 0.8, "ranker": None}]
        self.assertEqual(render.curves_svg(rows).count("<polyline"), 2)
        bad = subprocess.run([sys.executable, REPORT, self.results, "-o", md, "--curves-plot", svg],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--curves-plot needs --curves", bad.stderr)

    def test_repeat_option(self):
        again = os.path.join(self.dir, "SYNTHETIC-again.jsonl")
        with open(again, "w") as f:
            f.write(json.dumps(synthetic_problem("001_a", 1.0, None, 2.0, 1.5)) + "\n")
        out = subprocess.run([sys.executable, REPORT, self.results, "-o", "-", "--repeat", again],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("## Repeatability", out.stdout)
        self.assertIn("| ref | 1 | 0.500 | 0% | 0% | 0% |", out.stdout)
        missing = subprocess.run([sys.executable, REPORT, self.results, "--repeat",
                                  os.path.join(self.dir, "none.jsonl")],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("no such file", missing.stderr)

    def test_markdown_to_stdout(self):
        out = subprocess.run([sys.executable, REPORT, self.results, "-o", "-"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("# kfuse GPU benchmark report"))


if __name__ == "__main__":
    unittest.main()
