"""Tests of problem discovery, slicing, fingerprints and resuming (benchmarks/lib/corpus.py).

Run: python3 -m unittest discover benchmarks/lib
"""

import ast
import contextlib
import glob
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import contract  # noqa: E402
import corpus  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
CORPUS = os.path.join(os.path.dirname(HERE), "corpus")
RUN = os.path.join(os.path.dirname(HERE), "run")


def touch(*parts):
    path = os.path.join(*parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()
    return path


class Discovery(unittest.TestCase):
    def test_discover_pairs_and_kfuse_outputs(self):
        found, unpaired = corpus.discover(os.path.join(TESTDATA, "corpus"), (1, 2),
                                          os.path.join(TESTDATA, "kfuse"))
        ids = [p.id for p in found]
        self.assertEqual(ids[0], "level1/001_scale_add")
        self.assertIn("level2/001_accumulate_count", ids)
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(unpaired, [])
        with_kfuse = [p.id for p in found if p.kfuse]
        self.assertEqual(with_kfuse, ["level1/001_scale_add", "level1/002_small_matmul"])

    def test_levels_filter(self):
        found, _ = corpus.discover(os.path.join(TESTDATA, "corpus"), (2,))
        self.assertEqual([p.level for p in found], [2])

    def test_unpaired_and_helper_files(self):
        d = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(d, "level1"))
            for name in ("001_a.cu", "001_a.py", "002_b.cu", "_helper.py"):
                open(os.path.join(d, "level1", name), "w").close()
            found, unpaired = corpus.discover(d)
            self.assertEqual([p.id for p in found], ["level1/001_a"])
            self.assertEqual([os.path.basename(u) for u in unpaired], ["002_b.cu"])
        finally:
            shutil.rmtree(d)


class Slicing(unittest.TestCase):
    def problems(self, n):
        return [corpus.ProblemFiles(1, "%03d_p" % i, "x.cu", "x.py") for i in range(n)]

    def test_shards_are_disjoint_and_cover(self):
        ps = self.problems(10)
        shards = [corpus.select(ps, shard=(k, 3)) for k in (1, 2, 3)]
        ids = sorted(p.id for s in shards for p in s)
        self.assertEqual(ids, sorted(p.id for p in ps))
        self.assertEqual(len(shards[0]), 4)

    def test_only(self):
        ps = self.problems(12)
        self.assertEqual([p.id for p in corpus.select(ps, only="001_,011")],
                         ["level1/001_p", "level1/011_p"])

    def test_parse_arguments(self):
        self.assertEqual(corpus.parse_shard("2/4"), (2, 4))
        for bad in ("0/4", "5/4", "a/b", "3"):
            with self.assertRaises(ValueError):
                corpus.parse_shard(bad)
        self.assertEqual(corpus.parse_levels("2,1"), [1, 2])
        self.assertEqual(corpus.parse_levels("level3"), [3])
        with self.assertRaises(ValueError):
            corpus.parse_levels("4")

    def test_only_a_slice(self):
        ps = self.problems(3) + [corpus.ProblemFiles("launch", "%03d_p" % i, "x.cu", "x.py")
                                 for i in range(3)]
        self.assertEqual([p.id for p in corpus.select(ps, only="launch/")],
                         ["launch/000_p", "launch/001_p", "launch/002_p"])
        self.assertEqual([p.id for p in corpus.select(ps, only="001_")],
                         ["level1/001_p", "launch/001_p"])


class Levels(unittest.TestCase):
    """The launch slice (corpus/launch) next to the KernelBench levels."""

    def test_parse_levels_with_the_slice(self):
        self.assertEqual(corpus.parse_levels("launch"), ["launch"])
        self.assertEqual(corpus.parse_levels("1,2,3,launch"), [1, 2, 3, "launch"])
        self.assertEqual(corpus.parse_levels(" LAUNCH ,level2,launch,1"), [1, 2, "launch"])
        self.assertEqual(corpus.parse_levels("1,2,3"), [1, 2, 3])
        self.assertEqual(corpus.parse_levels(""), [])
        for bad in ("lunch", "launch2", "0", "1,4", "levellaunch"):
            with self.assertRaises(ValueError, msg=bad):
                corpus.parse_levels(bad)
        with self.assertRaisesRegex(ValueError, "launch"):
            corpus.parse_levels("5")

    def test_level_dir_and_ids(self):
        self.assertEqual(corpus.level_dir(2), "level2")
        self.assertEqual(corpus.level_dir("launch"), "launch")
        self.assertEqual(corpus.ProblemFiles(3, "044_b", "x.cu", "x.py").id, "level3/044_b")
        self.assertEqual(corpus.ProblemFiles("launch", "006_gru_small", "x.cu", "x.py").id,
                         "launch/006_gru_small")
        self.assertEqual(sorted(["launch", 3, 1], key=corpus.level_order), [1, 3, "launch"])

    def test_discover_the_slice_and_its_kfuse_outputs(self):
        d = tempfile.mkdtemp()
        try:
            corp, kf = os.path.join(d, "corpus"), os.path.join(d, "kfuse")
            for name in ("001_a.cu", "001_a.py"):
                touch(corp, "level1", name)
            for name in ("001_x.cu", "001_x.py", "002_y.cu", "002_y.py", "003_z.cu", "_note.py"):
                touch(corp, "launch", name)
            touch(kf, "launch", "002_y.cu")
            touch(kf, "level1", "002_y.cu")     # another folder's output: not this problem's
            found, unpaired = corpus.discover(corp, kfuse_dir=kf)
            self.assertEqual([p.id for p in found], ["level1/001_a"])   # default: no slice
            self.assertEqual(unpaired, [])
            found, unpaired = corpus.discover(corp, corpus.parse_levels("launch,1"), kf)
            self.assertEqual([p.id for p in found],
                             ["level1/001_a", "launch/001_x", "launch/002_y"])
            self.assertEqual([p.level for p in found], [1, "launch", "launch"])
            self.assertEqual([os.path.basename(u) for u in unpaired], ["003_z.cu"])
            y = found[2]
            self.assertEqual(y.kfuse, os.path.join(kf, "launch", "002_y.cu"))
            self.assertEqual(y.cu, os.path.join(corp, "launch", "002_y.cu"))
            self.assertIsNone(found[1].kfuse)
            # the fingerprint and the resume key work as for a level's problem
            self.assertEqual(corpus.variant_set(y, False), ["ref", "kfuse", "eager", "compile"])
            key = corpus.record_key(y.id, corpus.source_hash(y), corpus.variant_set(y, False))
            recs = [{"type": "problem", "problem": "launch/002_y", "source_hash": key[1],
                     "variants": list(key[2]), "status": "ok"}]
            self.assertIn(key, corpus.done_keys(recs))
            # the record's level is JSON as it is
            self.assertEqual(json.loads(json.dumps(corpus.jsonable({"level": y.level}))),
                             {"level": "launch"})
        finally:
            shutil.rmtree(d)

    def test_run_parses_the_slice(self):
        """benchmarks/run: --level launch selects the slice, the default leaves it out."""
        loader = importlib.machinery.SourceFileLoader("benchmarks_run", RUN)
        spec = importlib.util.spec_from_loader("benchmarks_run", loader)
        run = importlib.util.module_from_spec(spec)
        loader.exec_module(run)
        self.assertEqual(run.parse_args([]).levels, [1, 2, 3])
        self.assertEqual(run.parse_args(["--level", "launch"]).levels, ["launch"])
        self.assertEqual(run.parse_args(["--level", "1,2,3,launch"]).levels, [1, 2, 3, "launch"])
        err = io.StringIO()
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
            run.parse_args(["--level", "4"])
        self.assertIn("--level takes 1, 2, 3 and launch", err.getvalue())


def twin_entry(py):
    with open(py, encoding="utf-8") as f:
        tree = ast.parse(f.read(), py)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENTRY"
                                                for t in node.targets):
            return node.value.value
    return None


class LaunchSlice(unittest.TestCase):
    """The files of corpus/launch keep the corpus's conventions (corpus/README.md)."""

    def setUp(self):
        if not os.path.isdir(os.path.join(CORPUS, "launch")):
            self.skipTest("no corpus/launch")

    def test_ten_problems_each_a_pair(self):
        found, unpaired = corpus.discover(CORPUS, ("launch",))
        self.assertEqual(unpaired, [])
        self.assertEqual(len(found), 10)
        self.assertEqual([p.name[:3] for p in found], ["%03d" % i for i in range(1, 11)])
        self.assertTrue(all(p.id.startswith("launch/") for p in found))

    def test_entries_are_named_like_the_files_and_unique_in_the_corpus(self):
        others = set()
        for path in glob.glob(os.path.join(CORPUS, "*", "*.cu")):
            if os.path.basename(os.path.dirname(path)) != "launch":
                others |= set(contract.parse_file(path))
        for p in corpus.discover(CORPUS, ("launch",))[0]:
            with self.subTest(problem=p.id):
                entries = contract.parse_file(p.cu)
                name = re.sub(r"^\d{3}_", "", p.name)
                self.assertEqual(list(entries), [name])
                self.assertEqual(twin_entry(p.py), name)
                self.assertNotIn(name, others)
                e = entries[name]
                self.assertEqual(len(e.tunes), 1)
                self.assertTrue(e.checks)
                self.assertTrue(e.has_stream)
                for b in e.tunes + e.checks:
                    self.assertIsNone(e.check_assumes(b.values))
                    for buf in e.buffers:
                        self.assertTrue(all(x >= 0 for x in buf.shape(b.values)))
                        buf.init(b.values)


class Records(unittest.TestCase):
    def test_source_hash_follows_every_file(self):
        found, _ = corpus.discover(os.path.join(TESTDATA, "corpus"), (1,), os.path.join(TESTDATA, "kfuse"))
        p = found[0]
        bare = corpus.ProblemFiles(p.level, p.name, p.cu, p.py)
        self.assertNotEqual(corpus.source_hash(p), corpus.source_hash(bare))
        self.assertEqual(corpus.source_hash(p), corpus.source_hash(p))
        self.assertEqual(corpus.variant_set(p, False), ["ref", "kfuse", "eager", "compile"])
        self.assertEqual(corpus.variant_set(bare, True), ["ref", "eager", "compile", "max-autotune"])

    def test_resume_keys(self):
        recs = [{"type": "run"},
                {"type": "problem", "problem": "level1/a", "source_hash": "h1", "variants": ["ref", "eager"], "status": "ok"},
                {"type": "problem", "problem": "level1/b", "source_hash": "h2", "variants": ["ref"], "status": "crash"}]
        keys = corpus.done_keys(recs)
        self.assertIn(corpus.record_key("level1/a", "h1", ["eager", "ref"]), keys)
        self.assertIn(corpus.record_key("level1/b", "h2", ["ref"]), keys)
        self.assertNotIn(corpus.record_key("level1/a", "h1", ["ref"]), keys)      # other variants
        self.assertNotIn(corpus.record_key("level1/a", "h9", ["ref", "eager"]), keys)  # other sources
        retry = corpus.done_keys(recs, retry_failed=True)
        self.assertNotIn(corpus.record_key("level1/b", "h2", ["ref"]), retry)

    def test_read_records_skips_a_torn_line(self):
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "r.jsonl")
            with open(path, "w") as f:
                f.write(json.dumps({"type": "problem", "problem": "p"}) + "\n\n{\"type\": \"prob")
            self.assertEqual(len(corpus.read_records(path)), 1)
            self.assertEqual(corpus.read_records(os.path.join(d, "missing.jsonl")), [])
        finally:
            shutil.rmtree(d)

    def test_jsonable(self):
        x = corpus.jsonable({"a": float("nan"), "b": [float("inf"), -float("inf"), 1.5], 3: None})
        self.assertEqual(x, {"a": "nan", "b": ["inf", "-inf", 1.5], "3": None})
        json.dumps(x, allow_nan=False)


if __name__ == "__main__":
    unittest.main()
