"""Tests of problem discovery, slicing, fingerprints and resuming (benchmarks/lib/corpus.py).

Run: python3 -m unittest discover benchmarks/lib
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import corpus  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")


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
