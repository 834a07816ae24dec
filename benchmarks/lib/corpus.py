"""Finding, slicing and fingerprinting the benchmark's problems (stdlib only).

A problem is a pair `FOLDER/NAME.cu` + `FOLDER/NAME.py` under benchmarks/corpus; its id
is "FOLDER/NAME". The folders are the KernelBench levels `level1`, `level2`, `level3`
(level 1, 2, 3: ints) and the named slices of SLICES (`launch`: the launch-bound problems,
level "launch"). The kfuse output of a problem, when a folder of them is given, is
`KFUSE_DIR/FOLDER/NAME.cu`.
"""

import hashlib
import json
import math
import os
import re

# Bump when the measuring method changes in a way that makes old records incomparable:
# a resumed run then measures again instead of skipping.
METHOD_VERSION = 1


# The KernelBench levels (folders level1 .. level3) and the named slices of the corpus
# (folder and level are the name). `benchmarks/run --level` takes both; its default, the
# KernelBench levels, leaves the slices out (they run on request).
LEVELS = (1, 2, 3)
SLICES = ("launch",)
DEFAULT_LEVELS = LEVELS


def is_level_number(level):
    return isinstance(level, int) and not isinstance(level, bool)


def level_dir(level):
    """The corpus folder of a level, also its problems' id prefix: 1 -> "level1",
    "launch" -> "launch"."""
    return "level%d" % level if is_level_number(level) else str(level)


def level_order(level):
    """Sort key: the KernelBench levels in order, then the slices in SLICES order."""
    if is_level_number(level):
        return (0, level, "")
    return (1, SLICES.index(level) if level in SLICES else len(SLICES), str(level))


class ProblemFiles:
    """Where a problem's files are: id ("level1/001_square_matmul", "launch/006_gru_small"),
    level (1, 2, 3, or a slice's name: "launch"), name, cu, py, and kfuse (the kfuse
    output's path, or None)."""

    def __init__(self, level, name, cu, py, kfuse=None):
        self.level, self.name, self.cu, self.py, self.kfuse = level, name, cu, py, kfuse
        self.id = "%s/%s" % (level_dir(level), name)

    def __repr__(self):
        return "ProblemFiles(%r)" % self.id


def discover(corpus_dir, levels=DEFAULT_LEVELS, kfuse_dir=None):
    """All problems of the given levels (1, 2, 3 and slice names such as "launch"), in the
    order of `levels`, then by name. A .cu without its .py (or the reverse) is not a
    problem; `unpaired` lists those files."""
    found, unpaired = [], []
    for level in levels:
        d = os.path.join(corpus_dir, level_dir(level))
        if not os.path.isdir(d):
            continue
        names = sorted(os.listdir(d))
        # Names starting with '_' or '.' are helpers of the corpus's authors, not problems.
        stems = {os.path.splitext(n)[0] for n in names
                 if n.endswith((".cu", ".py")) and not n.startswith(("_", "."))}
        for stem in sorted(stems):
            cu, py = os.path.join(d, stem + ".cu"), os.path.join(d, stem + ".py")
            if not (os.path.isfile(cu) and os.path.isfile(py)):
                unpaired.append(cu if os.path.isfile(cu) else py)
                continue
            k = None
            if kfuse_dir:
                cand = os.path.join(kfuse_dir, level_dir(level), stem + ".cu")
                k = cand if os.path.isfile(cand) else None
            found.append(ProblemFiles(level, stem, cu, py, k))
    return found, unpaired


def parse_levels(text):
    """'2,1,launch' -> [1, 2, "launch"]: KernelBench levels as ints (1, 2, 3; "level3"
    is 3), slices by name (launch), each once, levels first, then slices."""
    levels = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in SLICES:
            levels.append(part)
            continue
        part = part.replace("level", "")
        if not part:
            continue
        if not part.isdigit() or int(part) not in LEVELS:
            raise ValueError("--level takes %s and %s, comma-separated: %r"
                             % (", ".join(str(n) for n in LEVELS), ", ".join(SLICES), text))
        levels.append(int(part))
    return sorted(set(levels), key=level_order)


def parse_shard(text):
    """'K/N' (1 <= K <= N) -> (K, N)."""
    m = re.match(r"^\s*(\d+)\s*/\s*(\d+)\s*$", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError("--shard takes K/N with 1 <= K <= N, e.g. 2/4: %r" % text)
    return int(m.group(1)), int(m.group(2))


def select(problems, only=None, shard=None):
    """Filters by substrings (any of them, in the id) and takes shard K of N: every N-th
    problem starting at the K-th, so shards are disjoint and cover the list."""
    if only:
        subs = [s.strip() for s in only.split(",") if s.strip()]
        problems = [p for p in problems if any(s in p.id for s in subs)]
    if shard:
        k, n = shard
        problems = [p for i, p in enumerate(problems) if i % n == k - 1]
    return problems


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def source_hash(p):
    """A fingerprint of what a problem's record depends on: the reference, the twin, the
    kfuse output (if any) and the method version."""
    h = hashlib.sha256()
    h.update(b"method %d\n" % METHOD_VERSION)
    for path in (p.cu, p.py, p.kfuse):
        h.update((file_hash(path) if path else "-").encode() + b"\n")
    return h.hexdigest()[:24]


def variant_set(p, max_autotune):
    """The variants measured for a problem, in a fixed order."""
    vs = ["ref"] + (["kfuse"] if p.kfuse else []) + ["eager", "compile"]
    return vs + (["max-autotune"] if max_autotune else [])


def record_key(problem_id, shash, variants):
    return (problem_id, shash, tuple(sorted(variants)))


def read_records(path):
    """The JSON lines of a results file (missing file: none); unreadable lines are
    skipped (a run killed mid-write leaves at most one)."""
    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def done_keys(records, retry_failed=False):
    """Keys of problems already measured. With retry_failed, problems whose record is
    not status "ok" are left out, so they run again."""
    keys = set()
    for r in records:
        if r.get("type") != "problem":
            continue
        if retry_failed and r.get("status") != "ok":
            continue
        keys.add(record_key(r.get("problem"), r.get("source_hash"), r.get("variants") or []))
    return keys


def jsonable(x):
    """Replaces NaN and infinities (not JSON) by the strings "nan", "inf", "-inf",
    recursively, so that every results line is strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x
