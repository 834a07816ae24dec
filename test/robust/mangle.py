#!/usr/bin/env python3
"""mangle.py: kfuse must never crash, hang or leave a half-written file, whatever it reads.

Takes seed files (the corpus's .cu files and the diagnostic tests), makes deterministic
variants of them (a fixed random seed; the same arguments give the same variants), and
runs kfuse on each variant twice:

  1. --emit=model -o -          (standard output discarded)
  2. --emit=KIND -o TMPFILE     (KIND cycles through cuda, lifted, model-json, model)

A run passes when kfuse exits 0, 1, 2 or 3 within the timeout, prints no sanitizer report
or internal error, and, when it exits non-zero, leaves no TMPFILE (and no TMPFILE.XXXXXX)
behind; a --emit=model-json output must parse as JSON in UTF-8. Each failing variant is
written to OUT/fail-NNN.cu, with its command lines and stderr in OUT/fail-NNN.txt, and
each failing run is named on standard output in a FAIL line. The last line is the summary:

  mangle: R runs on V variants of S seeds, F failures

and the exit status is 0 only when F is 0.

Run 2 does not use `-o /dev/null`: kfuse writes through a temporary file and rename(), which
(as root) would replace /dev/null itself.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

BAD_STDERR = re.compile(
    r"internal error|AddressSanitizer|LeakSanitizer|MemorySanitizer|ThreadSanitizer|"
    r"UndefinedBehaviorSanitizer|runtime error:|Assertion .* failed|stack-overflow|"
    r"Segmentation fault|double free|free\(\): |malloc\(\): |corrupted")
GOOD_CODES = (0, 1, 2, 3)

ANNOT_RE = re.compile(rb"^[ \t]*//[ \t]*kfuse[ \t]*:", re.M)
NUMBER_RE = re.compile(rb"(?<![A-Za-z_0-9.])[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")
EXTENT_RE = re.compile(rb"\[[^\]\n]*\]")
IDENT_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

HUGE = [b"99999999999999999999", b"9223372036854775807", b"9223372036854775808",
        b"-9223372036854775808", b"18446744073709551616", b"1e400", b"-1e-400", b"0x7fffffffffffffff",
        b"0", b"-1", b"0.0", b"1e", b"0x", b"1.5.5", b"077777777777777777777777", b"2147483648"]
UNICODE = ["é", "∑", "\u202e", "\u200b", "😀", "\ufeff", "ｘ", "Ω", "\u00a0", "\U0010ffff"]
JUNK = [b"(", b")", b"[", b"]", b"=", b",", b"//", b"/*", b"*/", b"\"", b"'", b"\\", b"\t",
        b"\r", b"#", b"kfuse:", b"in", b"out", b"inout", b"tune", b"check", b"assume",
        b"init", b"tol", b"%", b"/0", b"?", b":", b"&&", b"||", b"<<", b">>63", b"-", b"~",
        b"!", b"{", b"}", b";", b"<<<", b">>>", b" ", b"\x00", b"\xff", b"\xc3"]
DIRECTIVES = [b"in", b"out", b"inout", b"tune", b"check", b"assume", b"init", b"tol", b"bogus", b""]
TYPES = [b"float", b"double", b"half", b"bfloat16", b"int8", b"uint8", b"int32", b"int64",
         b"bool", b"int16", b"void", b"float[", b""]


def lines_of(data):
    return data.split(b"\n")


def annotation_lines(lines):
    return [i for i, l in enumerate(lines) if ANNOT_RE.match(l)]


def pick_line(rng, lines, annotated_first=True):
    ann = annotation_lines(lines)
    if ann and (annotated_first and rng.random() < 0.7):
        return rng.choice(ann)
    return rng.randrange(len(lines))


# ---------------------------------------------------------------- mutations
# Each takes (rng, data) and returns (label, new data).

def m_truncate(rng, data):
    return "truncate", data[:rng.randrange(len(data) + 1)]


def m_truncate_mid_token(rng, data):
    ids = [m for m in IDENT_RE.finditer(data) if m.end() - m.start() > 1]
    if not ids:
        return m_truncate(rng, data)
    m = rng.choice(ids)
    return "truncate-mid-token", data[:rng.randrange(m.start() + 1, m.end())]


def m_truncate_mid_comment(rng, data):
    starts = [m.start() for m in re.finditer(rb"//|/\*", data)]
    if not starts:
        return m_truncate(rng, data)
    s = rng.choice(starts)
    e = data.find(b"\n", s)
    e = len(data) if e < 0 else e
    return "truncate-mid-comment", data[:rng.randrange(s, e + 1)]


def m_truncate_mid_annotation(rng, data):
    ms = list(ANNOT_RE.finditer(data))
    if not ms:
        return m_truncate_mid_comment(rng, data)
    s = rng.choice(ms).start()
    e = data.find(b"\n", s)
    e = len(data) if e < 0 else e
    return "truncate-mid-annotation", data[:rng.randrange(s, e + 1)]


def m_byte_flip(rng, data):
    if not data:
        return "byte-flip", data
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 4, 16])):
        i = rng.randrange(len(b))
        b[i] = b[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
    return "byte-flip", bytes(b)


def m_delete_line(rng, data):
    ls = lines_of(data)
    del ls[pick_line(rng, ls)]
    return "delete-line", b"\n".join(ls)


def m_duplicate_line(rng, data):
    ls = lines_of(data)
    i = pick_line(rng, ls)
    ls.insert(i, ls[i])
    return "duplicate-line", b"\n".join(ls)


def m_swap_lines(rng, data):
    ls = lines_of(data)
    i = pick_line(rng, ls)
    j = min(len(ls) - 1, i + 1) if rng.random() < 0.5 else rng.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return "swap-lines", b"\n".join(ls)


def m_move_annotation(rng, data):
    """Moves an annotation line somewhere else: above a kernel, into a body, to the end."""
    ls = lines_of(data)
    ann = annotation_lines(ls)
    if not ann:
        return m_swap_lines(rng, data)
    l = ls.pop(rng.choice(ann))
    ls.insert(rng.randrange(len(ls) + 1), l)
    return "move-annotation", b"\n".join(ls)


def _mangle_annotation(rng, data, fn, label):
    ls = lines_of(data)
    ann = annotation_lines(ls)
    if not ann:
        return m_byte_flip(rng, data)
    i = rng.choice(ann)
    ls[i] = fn(ls[i])
    return label, b"\n".join(ls)


def m_annot_insert_junk(rng, data):
    def f(l):
        for _ in range(rng.choice([1, 2, 3])):
            p = rng.randrange(len(l) + 1)
            l = l[:p] + rng.choice(JUNK) + l[p:]
        return l
    return _mangle_annotation(rng, data, f, "annotation-junk")


def m_annot_random_chars(rng, data):
    def f(l):
        p = rng.randrange(len(l) + 1)
        s = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 8)))
        return l[:p] + s + l[p:]
    return _mangle_annotation(rng, data, f, "annotation-random-chars")


def m_annot_huge_number(rng, data):
    def f(l):
        ms = list(NUMBER_RE.finditer(l))
        if not ms:
            return l + b" N=" + rng.choice(HUGE)
        m = rng.choice(ms)
        return l[:m.start()] + rng.choice(HUGE) + l[m.end():]
    return _mangle_annotation(rng, data, f, "annotation-huge-number")


def m_annot_empty_extent(rng, data):
    def f(l):
        ms = list(EXTENT_RE.finditer(l))
        if not ms:
            return l + b"[]"
        m = rng.choice(ms)
        return l[:m.start()] + rng.choice([b"[]", b"[ ]", b"[][]", b"[", b"]", b"[[N]]"]) + l[m.end():]
    return _mangle_annotation(rng, data, f, "annotation-empty-extent")


def m_annot_unbalanced(rng, data):
    def f(l):
        ms = list(EXTENT_RE.finditer(l))
        if not ms:
            return l + b"(("
        m = rng.choice(ms)
        inner = l[m.start() + 1:m.end() - 1]
        new = rng.choice([b"[(" + inner + b"]", b"[" + inner + b")]", b"[" + inner + b"))(]",
                          b"[(" * 3 + inner + b"]", b"[" + inner + b" ? 1]", b"[" + inner + b"/0]",
                          b"[" + inner + b"%(" + inner + b"-" + inner + b")]", b"[-" + inner + b"]",
                          b"[" + inner + b"<<64]", b"[" + inner + b"*" + inner + b"*" + inner +
                          b"*" + inner + b"*" + inner + b"*" + inner + b"*" + inner + b"]"])
        return l[:m.start()] + new + l[m.end():]
    return _mangle_annotation(rng, data, f, "annotation-unbalanced")


def m_annot_unicode(rng, data):
    def f(l):
        p = rng.randrange(len(l) + 1)
        return l[:p] + rng.choice(UNICODE).encode() + l[p:]
    return _mangle_annotation(rng, data, f, "annotation-unicode")


def m_annot_long_line(rng, data):
    def f(l):
        n = rng.choice([1000, 10000, 100000])
        kind = rng.randrange(5)
        if kind == 0:
            return l + b" " + b"x" * n
        if kind == 1:
            return l + b" " * n
        if kind == 2:
            ms = list(EXTENT_RE.finditer(l))
            inner = b"+".join([b"N"] * (n // 2))
            return (l[:ms[0].start()] + b"[" + inner + b"]" + l[ms[0].end():]) if ms else l + inner
        if kind == 3:
            return l + b" " + b"A=1 " * (n // 4)
        return l + (b"[N]" * (n // 3))
    return _mangle_annotation(rng, data, f, "annotation-long-line")


def m_annot_deep_nesting(rng, data):
    """Deeply nested annotation expressions: parentheses, unary operators, long chains."""
    n = rng.choice([100, 1000, 100000])
    kind = rng.randrange(4)
    if kind == 0:
        e = b"(" * n + b"1" + b")" * n
    elif kind == 1:
        e = b"-" * n + b"1"
    elif kind == 2:
        e = b"+".join([b"1"] * n)
    else:
        e = b" && ".join([b"1"] * n)

    def f(l):
        ms = list(EXTENT_RE.finditer(l))
        if ms and rng.random() < 0.5:
            m = rng.choice(ms)
            return l[:m.start()] + b"[" + e + b"]" + l[m.end():]
        return l + b"\n// kfuse: assume " + e
    return _mangle_annotation(rng, data, f, "annotation-deep-nesting")


def m_annot_nul(rng, data):
    def f(l):
        p = rng.randrange(len(l) + 1)
        return l[:p] + b"\x00" + l[p:]
    return _mangle_annotation(rng, data, f, "annotation-nul")


def m_annot_keyword(rng, data):
    def f(l):
        m = re.match(rb"^([ \t]*//[ \t]*kfuse[ \t]*:[ \t]*)([A-Za-z_]*)(.*)$", l, re.S)
        if not m:
            return l
        if rng.random() < 0.5:
            return m.group(1) + rng.choice(DIRECTIVES) + m.group(3)
        rest = m.group(3)
        for t in TYPES:
            if t and rest.find(t) >= 0:
                return m.group(1) + m.group(2) + rest.replace(t, rng.choice(TYPES), 1)
        return m.group(1) + m.group(2) + rest.replace(b"=", b"", 1)
    return _mangle_annotation(rng, data, f, "annotation-keyword")


def m_annot_binding(rng, data):
    def f(l):
        if b"=" not in l:
            return l + b" N="
        p = [m.start() for m in re.finditer(rb"=", l)]
        i = rng.choice(p)
        return l[:i + 1] + rng.choice([b"", b" ", b"=", b"--1", b"1e", b".", b"-", b"+5", b"1,2",
                                        b"nan", b"inf", b"0x", b"0b101", b"'a'", b"1u", b"2LL"]) + l[i + 1:]
    return _mangle_annotation(rng, data, f, "annotation-binding")


def m_crlf(rng, data):
    return "crlf", data.replace(b"\n", b"\r\n")


def m_source_junk(rng, data):
    """Damage to the C++ itself: a removed brace, semicolon or parenthesis, a bad include."""
    kind = rng.randrange(4)
    if kind == 0:
        ps = [m.start() for m in re.finditer(rb"[{};()]", data)]
        if ps:
            p = rng.choice(ps)
            return "source-delete-punct", data[:p] + data[p + 1:]
    if kind == 1:
        return "source-bad-include", b'#include "does_not_exist.h"\n' + data
    if kind == 2:
        ps = [m.start() for m in re.finditer(rb"<<<", data)]
        if ps:
            p = rng.choice(ps)
            return "source-launch-junk", data[:p] + b"<<<" + data[p:]
    ids = list(IDENT_RE.finditer(data))
    if ids:
        a, b = rng.choice(ids), rng.choice(ids)
        return "source-swap-ident", data[:a.start()] + b.group(0) + data[a.end():]
    return "source-noop", data


MUTATIONS = [
    (m_truncate, 3), (m_truncate_mid_token, 2), (m_truncate_mid_comment, 2),
    (m_truncate_mid_annotation, 3), (m_byte_flip, 3), (m_delete_line, 3),
    (m_duplicate_line, 2), (m_swap_lines, 2), (m_move_annotation, 2),
    (m_annot_insert_junk, 3), (m_annot_random_chars, 3), (m_annot_huge_number, 3),
    (m_annot_empty_extent, 2), (m_annot_unbalanced, 3), (m_annot_unicode, 2),
    (m_annot_long_line, 2), (m_annot_deep_nesting, 2), (m_annot_nul, 1), (m_annot_keyword, 3),
    (m_annot_binding, 3), (m_crlf, 1), (m_source_junk, 3),
]


def make_variants(seeds, n, seed):
    rng = random.Random(seed)
    fns = [f for f, w in MUTATIONS for _ in range(w)]
    out = []
    # Every mutation kind at least once (round-robin first), then weighted at random.
    order = [f for f, _ in MUTATIONS]
    for k in range(n):
        path = seeds[rng.randrange(len(seeds))]
        with open(path, "rb") as f:
            data = f.read()
        fn = order[k] if k < len(order) else rng.choice(fns)
        label, new = fn(rng, data)
        # Now and then a second mutation on top of the first.
        if rng.random() < 0.2:
            l2, new = rng.choice(fns)(rng, new)
            label += "+" + l2
        out.append((path, label, new))
    return out


# ---------------------------------------------------------------- running

def json_problem(path):
    """None when path holds one JSON document in UTF-8, else what is wrong with it."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        return "--emit=model-json wrote invalid UTF-8 (%s)" % e
    except ValueError as e:
        return "--emit=model-json wrote invalid JSON (%s)" % e
    return None


def run_one(job):
    idx, kfuse, seed_path, label, data, timeout, workdir, emit_kind = job
    d = os.path.join(workdir, "v%05d" % idx)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "input.cu")
    with open(src, "wb") as f:
        f.write(data)
    outp = os.path.join(d, "output.cu")
    cmds = [
        ([kfuse, src, "--emit=model", "-o", "-"], None),
        ([kfuse, src, "--emit=" + emit_kind, "-o", outp], outp),
    ]
    failures = []
    for cmd, out_file in cmds:
        why = None
        stderr = b""
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=timeout)
            rc = p.returncode
            stderr = p.stderr
            if rc < 0:
                why = "killed by signal %d" % -rc
            elif rc not in GOOD_CODES:
                why = "exit status %d" % rc
            else:
                m = BAD_STDERR.search(stderr.decode("utf-8", "replace"))
                if m:
                    why = "stderr says '%s'" % m.group(0)
                elif out_file:
                    left = [x for x in os.listdir(d) if x.startswith("output.cu")]
                    if rc != 0 and left:
                        why = "exit status %d but left %s behind" % (rc, ", ".join(sorted(left)))
                    elif rc == 0 and left != ["output.cu"]:
                        why = "exit status 0 but the output directory holds %s" % (sorted(left),)
                    elif rc == 0 and emit_kind == "model-json":
                        why = json_problem(out_file)
        except subprocess.TimeoutExpired as e:
            rc = None
            stderr = e.stderr or b""
            why = "timed out after %ss" % timeout
        if out_file and os.path.exists(out_file):
            os.unlink(out_file)
        if why:
            failures.append((cmd, rc, why, stderr))
    shutil.rmtree(d, ignore_errors=True)
    return idx, seed_path, label, data, failures


def show(path):
    """A seed's path from the repository's root (benchmarks/corpus/..., test/diag/...)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rel = os.path.relpath(os.path.abspath(path), root)
    return path if rel.startswith("..") else rel


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kfuse", required=True, help="the kfuse binary")
    ap.add_argument("--corpus", required=True, help="benchmarks/corpus (its */*.cu are seeds)")
    ap.add_argument("--seeds", nargs="*", default=None,
                    help="more seed files or directories (default: test/diag next to this script)")
    ap.add_argument("--out", required=True, help="where failing inputs are written")
    ap.add_argument("--runs", type=int, default=300, help="kfuse runs in all (two a variant)")
    ap.add_argument("--seed", type=int, default=20240611, help="the random seed")
    ap.add_argument("--jobs", type=int, default=2, help="kfuse processes at once")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a run may take")
    ap.add_argument("--only", default=None, help="only mutations whose name contains this")
    ap.add_argument("--skip", default=None, help="no mutation whose name contains this")
    args = ap.parse_args()

    seeds = sorted(glob.glob(os.path.join(args.corpus, "*", "*.cu")))
    extra = args.seeds if args.seeds is not None else [os.path.join(here, "..", "diag")]
    for s in extra:
        if os.path.isdir(s):
            seeds += sorted(glob.glob(os.path.join(s, "*.cu")))
        elif os.path.isfile(s):
            seeds.append(s)
    if not seeds:
        print("mangle: no seed files", file=sys.stderr)
        return 2
    global MUTATIONS
    if args.only:
        MUTATIONS = [(f, w) for f, w in MUTATIONS if args.only.replace("-", "_") in f.__name__]
    if args.skip:
        MUTATIONS = [(f, w) for f, w in MUTATIONS if args.skip.replace("-", "_") not in f.__name__]
    if not MUTATIONS:
        print("mangle: --only and --skip leave no mutation", file=sys.stderr)
        return 2

    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    workdir = tempfile.mkdtemp(prefix="work.", dir=args.out)

    nvariants = max(1, args.runs // 2)
    variants = make_variants(seeds, nvariants, args.seed)
    kinds = ["cuda", "lifted", "model-json", "model"]
    jobs = [(i, os.path.abspath(args.kfuse), p, l, d, args.timeout, workdir, kinds[i % len(kinds)])
            for i, (p, l, d) in enumerate(variants)]

    nfail = 0
    nbad = 0
    nruns = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for idx, seed_path, label, data, failures in ex.map(run_one, jobs):
            nruns += 2
            if not failures:
                continue
            nbad += 1
            base = os.path.join(args.out, "fail-%03d" % nbad)
            with open(base + ".cu", "wb") as f:
                f.write(data)
            with open(base + ".txt", "wb") as f:
                f.write(("variant %d of %s (%s)\n" % (idx, seed_path, label)).encode())
                for cmd, rc, why, stderr in failures:
                    f.write(("\ncommand: %s\nexit: %s\nwhy: %s\n--- stderr\n" %
                             (" ".join(cmd), rc, why)).encode())
                    f.write(stderr[-20000:])
            for cmd, rc, why, stderr in failures:
                nfail += 1
                print("FAIL %s.cu: %s, with %s (variant %d: %s of %s)" %
                      (base, why, " ".join(cmd[2:-2]), idx, label, show(seed_path)), flush=True)
    shutil.rmtree(workdir, ignore_errors=True)
    print("mangle: %d runs on %d variants of %d seeds, %d failures" %
          (nruns, len(variants), len(seeds), nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
