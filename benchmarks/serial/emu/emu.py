#!/usr/bin/env python3
"""CPU emulation check of kfuse's parallelize outputs against their serial references.

    benchmarks/serial/emu/emu.py [--only SUBSTR,...] [-j 2] [--no-tune] [--report FILE]

For every program whose row in benchmarks/serial/STATUS.tsv has result `parallel`:
translate the serial reference and the parallel output (.par.cu) to host C++ (emu.h is
force-included, launches become kf_launch calls), build each into an executable, and for
every entry and every binding (each `check` line, the first check line with its integer
scalars +1, the first check line again with "stress" inputs -- floats drawn from a few
values inside the init domain (normal: integers -3..3; uniform(LO,HI): LO + k(HI-LO)/4;
positive: 0.25..2), so ties, zeros and exact sums occur -- and the `tune` line when it
is small enough to run on a CPU) draw the inputs as
the `init` lines say, run both programs on identical inputs and compare every out/inout
buffer by the contract's rule; `in` buffers must come back unchanged.

Runs per binding (all on the same inputs):
  ref_A  out buffers pre-filled with NaN (int: 0xFFFFFFFF... see PREFILL), guard page after each buffer
  ref_B  out buffers pre-filled with 0x5A bytes, guard page before each buffer
  par_A  NaN prefill, guard after, blocks/threads in forward order
  par_B  NaN prefill, guard before, blocks and threads in reverse order
  par_C  0x5A prefill, guard after, blocks and threads shuffled
  par_D  NaN prefill, guard after, reverse order, every kfuse_par_blocks cap (and every literal
         grid dimension over 1) lowered to 1 (KF_CAP=1): one block per capped grid dimension, so
         every grid-stride loop runs as it would for sizes past the caps
  par_E  0x5A prefill, guard before, shuffled, caps lowered to 2
  par_T  the parallel program built with -fsanitize=thread -DKF_TSAN: every CUDA thread a TSan
         fiber, ordered only as CUDA orders them (launches, barriers within a block; the blocks of
         a launch not at all, up to 4096 threads at once, else in chunks of blocks), caps lowered
         to 2: ThreadSanitizer reports two conflicting accesses of one launch that nothing orders
         (a race that the sequential runs cannot show, such as a lost update); check bindings only
par_A, par_B, par_D and par_T are compared with ref_A, par_C and par_E with ref_B; par_A vs par_B must be bitwise
identical (else the result depends on the order threads run in: a race); ref_A vs ref_B
shows elements the reference never writes.
"""
import argparse
import array
import concurrent.futures
import hashlib
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

EMU = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(EMU)))  # the clone: benchmarks/serial/emu
BUILD = os.path.join(ROOT, "build", "serial", "emu", "build")
WORK = os.path.join(ROOT, "build", "serial", "emu", "work")
SERIAL = os.path.join(ROOT, "benchmarks", "serial")
OUTDIR = os.path.join(ROOT, "build", "serial", "out")
CREF = os.path.join(ROOT, "build", "serial", "c")

CXX = ["g++", "-std=c++20", "-O1", "-fwrapv", "-fno-strict-aliasing", "-ffp-contract=off", "-pthread", "-w",
       "-include", os.path.join(EMU, "emu.h")]

TYPES = {"float": ("f", 4, True), "double": ("d", 8, True), "int32": ("i", 4, False), "int64": ("q", 8, False),
         "int8": ("b", 1, False), "uint8": ("B", 1, False), "bool": ("B", 1, False)}


# ------------------------------------------------------------------ C source handling
def mask(src):
    """The source with comments and string/char literal contents blanked (same length)."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if src[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_close(m, i, open_ch, close_ch):
    """Index of the bracket closing the one at m[i]."""
    depth = 0
    for j in range(i, len(m)):
        if m[j] == open_ch:
            depth += 1
        elif m[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced %s at %d" % (open_ch, i))


def split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def barrier_kernels(src, m):
    res = {}
    for g in re.finditer(r"__global__", m):
        p = m.find("(", g.end())
        name = re.findall(r"[A-Za-z_]\w*", m[g.end():p])[-1]
        q = match_close(m, p, "(", ")")
        b = m.find("{", q)
        semi = m.find(";", q)
        if semi >= 0 and semi < b:  # a declaration
            continue
        e = match_close(m, b, "{", "}")
        res[name] = res.get(name, False) or ("__syncthreads" in m[b:e])
    return res


def cap_literal_grid(g):
    """A literal grid dimension over 1 (the fixed block count of a triangular grid-stride
    dimension in the generated code) goes through kf_cap too, so KF_CAP lowers it."""
    def one(a):
        a2 = a.strip()
        if re.fullmatch(r"\d+[uU]?", a2) and int(a2.rstrip("uU")) > 1:
            return "kf_cap(%s)" % a2
        return a
    mt = re.fullmatch(r"\s*dim3\s*\((.*)\)\s*", g, re.S)
    if mt:
        return "dim3(%s)" % ",".join(one(a) for a in split_top(mt.group(1)))
    return one(g)


def translate(src):
    m = mask(src)
    bars = barrier_kernels(src, m)
    edits = []
    notes = []
    for inc in re.finditer(r"^[ \t]*#[ \t]*include[ \t]*<(cuda_runtime\.h|cuda\.h|cuda_runtime_api\.h|device_launch_parameters\.h)>",
                           m, re.M):
        edits.append((inc.start(), inc.end(), "/* %s */" % src[inc.start():inc.end()].strip()))
    sid = 0
    for sh in re.finditer(r"\b(extern\s+)?__shared__\s+((?:volatile\s+)?[A-Za-z_][\w:]*(?:\s*<[^;]*?>)?)\s+([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*);", m):
        if sh.group(1):
            raise ValueError("extern __shared__ is not supported by the emulator")
        sid += 1
        typ, name, dims = sh.group(2), sh.group(3), re.sub(r"\s+", "", sh.group(4))
        edits.append((sh.start(), sh.end(), "auto &%s = kf_shared<%s%s>(%d);" % (name, typ, dims, sid)))
    for ln in re.finditer(r"([A-Za-z_][\w:]*(?:\s*<[^<>;()]*>)?)\s*<<<", m):
        name = ln.group(1)
        i = ln.end()
        depth, j = 0, i
        while True:
            if m.startswith(">>>", j) and depth == 0:
                break
            if m[j] in "([{":
                depth += 1
            elif m[j] in ")]}":
                depth -= 1
            j += 1
        cfg = split_top(src[i:j])
        k = j + 3
        while m[k].isspace():
            k += 1
        if m[k] != "(":
            raise ValueError("launch of %s without arguments" % name)
        e = match_close(m, k, "(", ")")
        args = src[k + 1:e]
        base = re.sub(r"\s*<.*", "", name).split("::")[-1]
        bar = bars.get(base)
        if bar is None:
            notes.append("launch of %s: kernel definition not found, assuming barriers" % name)
            bar = True
        if len(cfg) < 2:
            raise ValueError("launch of %s with %d config items" % (name, len(cfg)))
        grid = cap_literal_grid(cfg[0].strip())
        rep = 'kf_launch(dim3(%s), dim3(%s), "%s", %s, [&]() { %s(%s); })' % (
            grid, cfg[1].strip(), base, "true" if bar else "false", name, args)
        edits.append((ln.start(), e + 1, rep))
    # KF_CAP (emu.h kf_cap) lowers the caps of kfuse_par_blocks, so that small sizes run the
    # grid-stride loops of the generated kernels as large sizes would
    for pb in re.finditer(r"\bkfuse_par_blocks\s*\(([^()]*)\)\s*\{", m):
        cap = re.findall(r"[A-Za-z_]\w*", pb.group(1).split(",")[-1])[-1]
        edits.append((pb.end(), pb.end(), " %s = kf_cap(%s);" % (cap, cap)))
    edits.sort()
    out, pos = [], 0
    for s, e, r in edits:
        if s < pos:
            raise ValueError("overlapping edits at %d" % s)
        out.append(src[pos:s])
        out.append(r)
        pos = e
    out.append(src[pos:])
    out.append("\nstatic int kf_nshared_init_ = (kf_nshared_ids = %d, 0);\n" % sid)
    return "".join(out), notes


# ------------------------------------------------------------------ C expressions
TOK = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?[fF]?|\d*\.\d+(?:[eE][-+]?\d+)?[fF]?|\d+[eE][-+]?\d+[fF]?)|(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||<=|>=|==|!=|<<|>>|[-+*/%()<>!?:~&|^]))")


def c_tokens(s):
    toks, i = [], 0
    s = s.strip()
    while i < len(s):
        mt = TOK.match(s, i)
        if not mt or mt.end() == i:
            raise ValueError("bad expression %r at %r" % (s, s[i:]))
        if mt.group(1):
            toks.append(("num", float(mt.group(1).rstrip("fF"))))
        elif mt.group(2):
            toks.append(("num", int(mt.group(2), 0)))
        elif mt.group(3):
            toks.append(("id", mt.group(3)))
        else:
            toks.append(("op", mt.group(4)))
        i = mt.end()
        while i < len(s) and s[i].isspace():
            i += 1
    return toks


BIN = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8,
       ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def c_div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def c_mod(a, b):
    return a - c_div(a, b) * b


def c_eval(s, env):
    toks = c_tokens(s)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else ("end", None)

    def take():
        t = peek()
        pos[0] += 1
        return t

    def primary():
        t = take()
        if t[0] == "num":
            return t[1]
        if t[0] == "id":
            if t[1] not in env:
                raise KeyError(t[1])
            return env[t[1]]
        if t == ("op", "("):
            v = ternary()
            if take() != ("op", ")"):
                raise ValueError("missing ) in %r" % s)
            return v
        if t == ("op", "-"):
            return -primary()
        if t == ("op", "+"):
            return primary()
        if t == ("op", "!"):
            return int(not primary())
        if t == ("op", "~"):
            return ~primary()
        raise ValueError("unexpected %r in %r" % (t, s))

    def binary(minp):
        lhs = primary()
        while True:
            t = peek()
            if t[0] != "op" or t[1] not in BIN or BIN[t[1]] < minp:
                return lhs
            op = t[1]
            take()
            rhs = binary(BIN[op] + 1)
            lhs = {"||": lambda a, b: int(bool(a) or bool(b)), "&&": lambda a, b: int(bool(a) and bool(b)),
                   "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&": lambda a, b: a & b,
                   "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b),
                   ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
                   "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "+": lambda a, b: a + b,
                   "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": c_div, "%": c_mod}[op](lhs, rhs)

    def ternary():
        c = binary(1)
        if peek() == ("op", "?"):
            take()
            a = ternary()
            if take() != ("op", ":"):
                raise ValueError("missing : in %r" % s)
            b = ternary()
            return a if c else b
        return c

    v = ternary()
    if pos[0] != len(toks):
        raise ValueError("trailing tokens in %r" % s)
    return v


# ------------------------------------------------------------------ entries and annotations
class Buf:
    def __init__(self, role, name, typ, extents):
        self.role, self.name, self.typ, self.extents = role, name, typ, extents


class Entry:
    pass


def parse_literal(v):
    if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)", v):
        return int(v, 0)
    return float(v.rstrip("fF"))


def parse_entries(src):
    m = mask(src)
    lines = src.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    entries = []
    for ex in re.finditer(r'extern\s+"C"', src):
        if m[ex.start()] == " " and src[ex.start()] != " ":
            continue  # inside a comment
        p = m.find("(", ex.end())
        q = match_close(m, p, "(", ")")
        after = m[q + 1:].lstrip()
        if not after.startswith("{"):
            continue
        head = m[ex.end():p]
        e = Entry()
        e.name = re.findall(r"[A-Za-z_]\w*", head)[-1]
        e.params = []
        for prm in split_top(src[p + 1:q]):
            prm = prm.strip()
            if not prm or prm == "void":
                continue
            nm = re.findall(r"[A-Za-z_]\w*", prm)[-1]
            if "cudaStream_t" in prm:
                kind = "stream"
            elif "*" in prm:
                kind = "ptr"
            elif re.search(r"\b(float|double)\b", prm):
                kind = "float"
            else:
                kind = "int"
            e.params.append((nm, kind))
        # the run of // lines directly above the entry
        line_no = src.count("\n", 0, ex.start())
        ann = []
        k = line_no - 1
        while k >= 0 and lines[k].lstrip().startswith("//"):
            ann.insert(0, lines[k].strip())
            k -= 1
        e.ann = [a for a in ann if re.match(r"//\s*kfuse\s*:", a)]
        e.bufs, e.init, e.tune, e.check, e.assume = {}, {}, [], [], []
        e.tol = None
        e.order = []
        for a in e.ann:
            body = re.sub(r"^//\s*kfuse\s*:\s*", "", a)
            w = body.split(None, 1)
            d, rest = w[0], (w[1] if len(w) > 1 else "")
            if d in ("in", "out", "inout"):
                nm, spec = rest.split(None, 1) if " " in rest.strip() else (rest.strip(), "")
                tm = re.match(r"\s*(\w+)\s*(.*)$", spec)
                typ, ext = tm.group(1), tm.group(2)
                exts = re.findall(r"\[([^\]]*)\]", ext)
                e.bufs[nm] = Buf(d, nm, typ, exts)
            elif d == "init":
                nm, dist = rest.split(None, 1)
                e.init[nm] = dist.strip()
            elif d in ("tune", "check"):
                b = {}
                for kv in rest.split():
                    k2, v2 = kv.split("=", 1)
                    b[k2] = parse_literal(v2)
                (e.tune if d == "tune" else e.check).append(b)
            elif d == "assume":
                e.assume.append(rest.strip())
            elif d == "tol":
                t = dict(kv.split("=", 1) for kv in rest.split())
                e.tol = (float(t.get("rtol", 0)), float(t.get("atol", 0)))
            elif d == "deterministic":
                e.deterministic = True
        entries.append(e)
    return entries


# ------------------------------------------------------------------ programs
def programs():
    rows = []
    with open(os.path.join(SERIAL, "STATUS.tsv")) as f:
        hdr = f.readline().rstrip("\n").split("\t")
        for ln in f:
            r = dict(zip(hdr, ln.rstrip("\n").split("\t")))
            if r.get("result") == "parallel":
                rows.append(r["program"])
    return rows


def prog_paths(prog):
    group, fname = prog.split("/", 1)
    base = os.path.splitext(fname)[0]
    if fname.endswith(".c"):
        ref = os.path.join(CREF, base + ".cu")
    else:
        ref = os.path.join(SERIAL, group, fname)
    par = os.path.join(OUTDIR, "%s_%s.par.cu" % (group, fname))
    return ref, par


def tag_of(prog):
    return prog.replace("/", "_")


TSAN = ["-g", "-fsanitize=thread", "-DKF_TSAN"]


def build_one(prog, which, src_path, extra=()):
    """Translate and compile; returns (exe, error_line or None)."""
    d = os.path.join(BUILD, tag_of(prog))
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, which)
    try:
        src = open(src_path).read()
        tr, notes = translate(src)
        ents = parse_entries(src)
    except Exception as ex:  # noqa
        return None, "translate: %s" % ex
    tr = "#line 1 \"%s\"\n%s\n#include \"%s\"\n%s\n" % (src_path, tr, os.path.join(EMU, "emu_main.h"),
                                                        "\n".join("KF_ENTRY(%s)" % e.name for e in ents))
    cpp = exe + ".cpp"
    h = hashlib.sha256()
    h.update(tr.encode())
    for f in ("emu.h", "emu_main.h"):
        h.update(open(os.path.join(EMU, f), "rb").read())
    h.update(" ".join(CXX + list(extra)).encode())
    digest = h.hexdigest()
    stamp = exe + ".hash"
    if os.path.exists(exe) and os.path.exists(stamp) and open(stamp).read() == digest:
        return exe, None
    with open(cpp, "w") as f:
        f.write(tr)
    r = subprocess.run(CXX + list(extra) + ["-x", "c++", cpp, "-o", exe], capture_output=True, text=True)
    if r.returncode != 0:
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip().splitlines()[0]
                     if r.stderr.strip() else "?")
        with open(exe + ".log", "w") as f:
            f.write(r.stderr)
        if os.path.exists(exe):
            os.unlink(exe)
        return None, first.strip()
    with open(stamp, "w") as f:
        f.write(digest)
    return exe, None


# ------------------------------------------------------------------ inputs
PREFILL_ALT = 0x5A
KEEP = False


def draw(buf, dist, count, env, rng, stress=False):
    fmt, size, isfloat = TYPES[buf.typ]
    if dist is None:
        dist = "normal" if isfloat else ("int(0,2)" if buf.typ == "bool" else "int(-100,100)")
    dm = re.match(r"(\w+)\s*(?:\((.*)\))?\s*$", dist)
    kind = dm.group(1)
    argsx = split_top(dm.group(2)) if dm.group(2) else []
    if stress and isfloat and kind == "normal":
        # few distinct values: ties, zeros, exact sums
        vals = [float(rng.randrange(-3, 4)) for _ in range(count)]
    elif stress and isfloat and kind == "positive":
        vals = [rng.choice((0.25, 0.5, 1.0, 1.5, 2.0)) for _ in range(count)]
    elif stress and isfloat and kind == "uniform":
        lo, hi = (float(c_eval(a, env)) for a in argsx)
        vals = [lo + (hi - lo) * rng.randrange(0, 5) / 4.0 for _ in range(count)]
    elif kind == "normal":
        vals = [rng.gauss(0.0, 1.0) for _ in range(count)]
    elif kind == "positive":
        vals = [rng.uniform(0.1, 2.0) for _ in range(count)]
    elif kind == "uniform":
        lo, hi = (float(c_eval(a, env)) for a in argsx)
        vals = [rng.uniform(lo, hi) for _ in range(count)]
    elif kind == "int":
        lo, hi = (int(c_eval(a, env)) for a in argsx)
        vals = [rng.randrange(lo, hi) for _ in range(count)]
    else:
        raise ValueError("unknown init %r" % dist)
    if not isfloat:
        vals = [int(v) for v in vals]
    return array.array(fmt, vals).tobytes()


def nelems(buf, env):
    n = 1
    for x in buf.extents:
        v = c_eval(x, env)
        if not isinstance(v, int) or v < 0:
            raise ValueError("extent %s = %r" % (x, v))
        n *= v
    return n


def prefill_bytes(buf, count, alt):
    fmt, size, isfloat = TYPES[buf.typ]
    if alt:
        return bytes([PREFILL_ALT]) * (count * size)
    if isfloat:
        return array.array(fmt, [float("nan")] * count).tobytes()
    return b"\xff" * (count * size)  # -1 for signed integers


# ------------------------------------------------------------------ comparison
def unravel(i, shape):
    idx = []
    for s in reversed(shape):
        idx.append(i % s if s else 0)
        i = i // s if s else 0
    return "[" + "][".join(str(x) for x in reversed(idx)) + "]"


def compare(buf, out_b, ref_b, tol, shape):
    """None when it matches, else (max_err, first_bad_index, detail)."""
    fmt, size, isfloat = TYPES[buf.typ]
    o = array.array(fmt)
    o.frombytes(out_b)
    r = array.array(fmt)
    r.frombytes(ref_b)
    if not isfloat:
        bad = [i for i in range(len(r)) if o[i] != r[i]]
        if not bad:
            return None
        mx = max(abs(o[i] - r[i]) for i in bad)
        i0 = bad[0]
        return (mx, i0, "%d of %d elements differ; at %s out=%d ref=%d" % (len(bad), len(r), unravel(i0, shape),
                                                                           o[i0], r[i0]))
    rtol, atol = tol
    maxref, maxerr, se, sr = 0.0, 0.0, 0.0, 0.0
    special_bad = []
    for i in range(len(r)):
        a, b = o[i], r[i]
        fa, fb = math.isfinite(a), math.isfinite(b)
        if not fb or not fa:
            if not (fa == fb and ((math.isnan(a) and math.isnan(b)) or a == b)):
                special_bad.append(i)
            continue
        d = abs(a - b)
        if abs(b) > maxref:
            maxref = abs(b)
        if d > maxerr:
            maxerr = d
        se += d * d
        sr += b * b
    lim = atol + rtol * maxref
    ok_max = maxerr <= lim
    ok_l2 = math.sqrt(se) <= rtol * math.sqrt(sr)
    if not special_bad and ok_max and ok_l2:
        return None
    first = None
    for i in range(len(r)):
        a, b = o[i], r[i]
        if i in special_bad[:1] or (math.isfinite(a) and math.isfinite(b) and abs(a - b) > lim):
            first = i
            break
    if first is None and special_bad:
        first = special_bad[0]
    if first is None:  # only the l2 rule fails: the element with the largest error
        first = max(range(len(r)), key=lambda i: abs(o[i] - r[i]) if math.isfinite(o[i]) and math.isfinite(r[i]) else -1)
    nbad = sum(1 for i in range(len(r)) if math.isfinite(o[i]) and math.isfinite(r[i]) and abs(o[i] - r[i]) > lim)
    detail = "max_err=%.3g (limit %.3g), l2 %.3g vs %.3g, %d elements over the limit, %d NaN/Inf mismatches; " \
             "first at %s out=%r ref=%r" % (maxerr, lim, math.sqrt(se), rtol * math.sqrt(sr), nbad, len(special_bad),
                                            unravel(first, shape), o[first], r[first])
    return (maxerr if not special_bad else float("inf"), first, detail)


def unwritten(buf, a_b, b_b, shape):
    """Elements of an out buffer that differ between the NaN-prefilled and the 0x5A-prefilled run."""
    fmt, size, isfloat = TYPES[buf.typ]
    n = len(a_b) // size
    diff = [i for i in range(n) if a_b[i * size:(i + 1) * size] != b_b[i * size:(i + 1) * size]]
    return diff


# ------------------------------------------------------------------ running
def run_exe(exe, spec_path, env_extra, timeout):
    env = dict(os.environ)
    env.update(env_extra)
    t0 = time.time()
    try:
        r = subprocess.run([exe, spec_path], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "err": "", "wall": time.time() - t0}
    return {"rc": r.returncode, "err": r.stderr, "wall": time.time() - t0}


def derived_binding(e):
    """The first check binding with its integer scalars +1 (as many as the assumes allow)."""
    if not e.check:
        return None
    base = dict(e.check[0])
    ints = [p for p, k in e.params if k == "int" and p in base]

    def ok(b):
        try:
            return all(c_eval(a, b) for a in e.assume)
        except Exception:  # noqa
            return False

    cand = dict(base)
    for p in ints:
        cand[p] += 1
    if ok(cand):
        return cand
    cand = dict(base)
    for p in ints:
        t = dict(cand)
        t[p] += 1
        if ok(t):
            cand = t
    return cand if cand != base else None


def btag(b):
    return "_".join("%s%s" % (k, v) for k, v in sorted(b.items()))


def bstr(b):
    return " ".join("%s=%s" % (k, v) for k, v in b.items())


def check_binding(prog, e, kind, b, ref_exe, par_exe, timeout, max_elems=None, tsan_exe=None):
    """Returns a dict with verdict, detail, notes."""
    res = {"program": prog, "entry": e.name, "kind": kind, "binding": bstr(b), "notes": []}
    env = dict(b)
    try:
        for a in e.assume:
            if not c_eval(a, env):
                res.update(verdict="SKIPPED", detail="assume %s fails" % a)
                return res
        shapes = {nm: [c_eval(x, env) for x in bf.extents] for nm, bf in e.bufs.items()}
        counts = {nm: nelems(bf, env) for nm, bf in e.bufs.items()}
    except Exception as ex:  # noqa
        res.update(verdict="SKIPPED", detail="cannot evaluate the binding: %s" % ex)
        return res
    total = sum(counts.values())
    if max_elems is not None and total > max_elems:
        res.update(verdict="SKIPPED", detail="%d elements, too large for the emulator" % total)
        return res
    d = os.path.join(WORK, tag_of(prog), e.name, kind + "_" + btag(b))
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    init = {}
    for nm, bf in e.bufs.items():
        if bf.role in ("in", "inout"):
            rng = random.Random(zlib.crc32(("%s|%s|%s|%s%s" % (prog, e.name, btag(b), nm,
                                                              "|stress" if kind == "stress" else "")).encode()))
            init[nm] = draw(bf, e.init.get(nm), counts[nm], env, rng, stress=(kind == "stress"))
    for nm, bf in e.bufs.items():
        for alt in (False, True):
            data = prefill_bytes(bf, counts[nm], alt) if bf.role == "out" else init[nm]
            with open(os.path.join(d, "in_%s_%s.bin" % (nm, "B" if alt else "A")), "wb") as f:
                f.write(data)

    def spec(run, alt):
        p = os.path.join(d, "spec_%s.txt" % run)
        with open(p, "w") as f:
            f.write("entry %s\n" % e.name)
            for nm, k in e.params:
                if k == "ptr":
                    bf = e.bufs[nm]
                    f.write("buf %s %s %d\n" % (os.path.join(d, "in_%s_%s.bin" % (nm, "B" if alt else "A")),
                                                os.path.join(d, "out_%s_%s.bin" % (run, nm)),
                                                counts[nm] * TYPES[bf.typ][1]))
                elif k == "stream":
                    f.write("stream\n")
                else:
                    if nm not in b:
                        raise KeyError("scalar %s not bound" % nm)
                    f.write("val %r\n" % (b[nm],))
        return p

    runs = {"ref_A": (ref_exe, False, {"KF_GUARD": "back", "KF_ORDER": "fwd"}),
            "ref_B": (ref_exe, True, {"KF_GUARD": "front", "KF_ORDER": "fwd"}),
            "par_A": (par_exe, False, {"KF_GUARD": "back", "KF_ORDER": "fwd"}),
            "par_B": (par_exe, False, {"KF_GUARD": "front", "KF_ORDER": "rev"}),
            "par_C": (par_exe, True, {"KF_GUARD": "back", "KF_ORDER": "shuf"}),
            "par_D": (par_exe, False, {"KF_GUARD": "back", "KF_ORDER": "rev", "KF_CAP": "1"}),
            "par_E": (par_exe, True, {"KF_GUARD": "front", "KF_ORDER": "shuf", "KF_CAP": "2"})}
    if tsan_exe:
        runs["par_T"] = (tsan_exe, False, {"KF_GUARD": "back", "KF_ORDER": "shuf", "KF_CAP": "2",
                                           "TSAN_OPTIONS": "exitcode=0 halt_on_error=0 report_signal_unsafe=0"})
    out = {}
    races = []
    for run, (exe, alt, envx) in runs.items():
        tmo = timeout if (kind != "tune" or run.startswith("ref")) else 4 * timeout
        r = run_exe(exe, spec(run, alt), envx, tmo)
        out[run] = r
        for ln in r["err"].splitlines():
            if ln.startswith(("EMU-NOTE", "EMU-WARN", "EMU-LAUNCH-ERROR", "EMU-ERROR")):
                res["notes"].append("%s: %s" % (run, ln))
        if r["rc"] != 0:
            msg = "timeout after %ds" % tmo if r["rc"] == "timeout" else \
                "exit %s: %s" % (r["rc"], (r["err"].strip().splitlines() or ["?"])[-1])
            if run.startswith("ref"):
                if r["rc"] == "timeout" and kind == "tune":
                    res.update(verdict="SKIPPED", detail="reference too slow on CPU (%s)" % msg)
                else:
                    res.update(verdict="REF-CRASH", detail="%s %s" % (run, msg))
                return res
            if r["rc"] == "timeout" and kind == "tune":
                res.update(verdict="SKIPPED", detail="emulated parallel run too slow (%s)" % msg)
            else:
                res.update(verdict="CRASH" if r["rc"] != "timeout" else "TIMEOUT", detail="%s %s" % (run, msg))
            return res
        for ln in r["err"].splitlines():
            mt = re.match(r"SUMMARY: ThreadSanitizer: (.*)", ln)
            if mt and mt.group(1) not in races:
                races.append(mt.group(1))
        if "ThreadSanitizer" in r["err"] and not races:
            races.append((re.findall(r"ThreadSanitizer.*", r["err"]) or ["?"])[0])
        m = re.search(r"EMU-DONE: ([0-9.]+) s", r["err"])
        res[run + "_s"] = float(m.group(1)) if m else None

    def rd(run, nm):
        with open(os.path.join(d, "out_%s_%s.bin" % (run, nm)), "rb") as f:
            return f.read()

    fails = []
    for nm, bf in e.bufs.items():
        if bf.role == "in":
            for run in runs:
                if rd(run, nm) != init[nm]:
                    fails.append(("IN-MODIFIED", nm, "%s changed the in buffer %s" % (run, nm)))
                    break
            continue
        # the reference itself
        ua = unwritten(bf, rd("ref_A", nm), rd("ref_B", nm), shapes[nm])
        if ua:
            res["notes"].append("REFERENCE: %d elements of %s differ between prefills (never written?), first %s" % (
                len(ua), nm, unravel(ua[0], shapes[nm])))
        fmt, size, isfloat = TYPES[bf.typ]
        if isfloat:
            ra = array.array(fmt)
            ra.frombytes(rd("ref_A", nm))
            nonfin = sum(1 for v in ra if not math.isfinite(v))
            if nonfin:
                res["notes"].append("REFERENCE: %d non-finite elements in %s" % (nonfin, nm))
        tol = e.tol if e.tol else ((1e-4, 1e-5) if isfloat else (0.0, 0.0))
        for run, refrun in (("par_A", "ref_A"), ("par_B", "ref_A"), ("par_C", "ref_B"), ("par_D", "ref_A"),
                            ("par_E", "ref_B"), ("par_T", "ref_A")):
            if run not in runs:
                continue
            c = compare(bf, rd(run, nm), rd(refrun, nm), tol, shapes[nm])
            if c:
                fails.append(("MISMATCH", nm, "%s: %s %s" % (run, nm, c[2])))
                break
        if rd("par_A", nm) != rd("par_B", nm):
            pa, pb = rd("par_A", nm), rd("par_B", nm)
            nd = unwritten(bf, pa, pb, shapes[nm])
            fails.append(("ORDER-DEPENDENT", nm, "%s: %d elements differ between forward and reverse thread order, "
                                                 "first %s" % (nm, len(nd), unravel(nd[0], shapes[nm]))))
    if races:
        with open(os.path.join(d, "tsan.txt"), "w") as f:
            f.write(out["par_T"]["err"])
        fails.append(("RACE", "-", "ThreadSanitizer (par_T, KF_CAP=2): " + "; ".join(races[:4]) +
                      (" (+%d more)" % (len(races) - 4) if len(races) > 4 else "")))
    m2 = re.search(r"EMU-DONE.*", out.get("par_T", {}).get("err", ""))
    if fails:
        kinds = sorted(set(f[0] for f in fails))
        res.update(verdict="/".join(kinds), detail="; ".join(f[2] for f in fails))
    else:
        res.update(verdict="ok", detail="")
    if res["verdict"] == "ok" and not KEEP and not any(n.startswith("REFERENCE") for n in res["notes"]):
        shutil.rmtree(d, ignore_errors=True)  # keep the files of suspicious cases only
    return res


def process(prog, args):
    ref_path, par_path = prog_paths(prog)
    rows = []
    if not os.path.exists(par_path) or not os.path.exists(ref_path):
        return [{"program": prog, "entry": "-", "kind": "-", "binding": "-", "verdict": "SKIPPED",
                 "detail": "missing %s" % (par_path if not os.path.exists(par_path) else ref_path), "notes": []}]
    ref_exe, rerr = build_one(prog, "ref", ref_path)
    par_exe, perr = build_one(prog, "par", par_path)
    tsan_exe, terr = build_one(prog, "par_tsan", par_path, TSAN) if not args.no_tsan else (None, None)
    if terr and not perr:
        perr = "(tsan build) " + terr
    if rerr or perr:
        return [{"program": prog, "entry": "-", "kind": "-", "binding": "-", "verdict": "BUILD-ERROR",
                 "detail": ("ref: " + rerr) if rerr else ("par: " + perr), "notes": []}]
    rents = {e.name: e for e in parse_entries(open(ref_path).read())}
    pents = {e.name: e for e in parse_entries(open(par_path).read())}
    for name, e in rents.items():
        if not e.ann:
            continue
        notes = []
        if name not in pents:
            rows.append({"program": prog, "entry": name, "kind": "-", "binding": "-", "verdict": "MISSING-ENTRY",
                         "detail": "the parallel output has no entry %s" % name, "notes": []})
            continue
        if pents[name].ann != e.ann:
            notes.append("annotations differ between reference and output")
        binds = [("check", b) for b in e.check]
        db = derived_binding(e)
        if db and db not in e.check:
            binds.append(("check+1", db))
        if e.check and not args.no_stress:
            binds.append(("stress", e.check[0]))
        if not args.no_tune:
            for b in e.tune:
                binds.append(("tune", b))
        for kind, b in binds:
            if kind == "tune":
                r = check_binding(prog, e, kind, b, ref_exe, par_exe, args.tune_timeout, max_elems=args.tune_elems)  # no TSan run: too slow
            else:
                r = check_binding(prog, e, kind, b, ref_exe, par_exe, args.timeout, tsan_exe=tsan_exe)
            r["notes"] = notes + r["notes"]
            rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--no-tune", action="store_true")
    ap.add_argument("--no-stress", action="store_true", help="skip the stress binding (coarse float inputs)")
    ap.add_argument("--no-tsan", action="store_true", help="skip the ThreadSanitizer build and run (par_T)")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--tune-timeout", type=int, default=20)
    ap.add_argument("--tune-elems", type=int, default=20000000)
    ap.add_argument("--report", default=os.path.join(ROOT, "build", "serial", "emu", "report.tsv"))
    ap.add_argument("--keep", action="store_true", help="keep every run's files under work/")
    ap.add_argument("--outdir", default=None, help="take the .par.cu files from here (self-test)")
    ap.add_argument("--scratch", default=None, help="build/work folder root instead of build/serial/emu")
    args = ap.parse_args()
    global OUTDIR, BUILD, WORK, KEEP
    KEEP = args.keep
    if args.outdir:
        OUTDIR = args.outdir
    if args.scratch:
        BUILD = os.path.join(args.scratch, "build")
        WORK = os.path.join(args.scratch, "work")
    j = max(1, min(args.j, 2))
    progs = programs()
    if args.only:
        keys = args.only.split(",")
        progs = [p for p in progs if any(k in p for k in keys)]
    os.makedirs(BUILD, exist_ok=True)
    os.makedirs(WORK, exist_ok=True)
    allrows = []
    with concurrent.futures.ThreadPoolExecutor(j) as ex:
        futs = {p: ex.submit(process, p, args) for p in progs}
        for p in progs:
            try:
                rows = futs[p].result()
            except Exception as exn:  # noqa
                rows = [{"program": p, "entry": "-", "kind": "-", "binding": "-", "verdict": "HARNESS-ERROR",
                         "detail": repr(exn), "notes": []}]
            for r in rows:
                print("%-28s %-16s %-8s %-28s %s %s %s" % (r["program"], r["entry"], r["kind"], r["binding"],
                                                          r["verdict"], r.get("detail", ""),
                                                          " | ".join(r["notes"])), flush=True)
            allrows.extend(rows)
    with open(args.report, "w") as f:
        f.write("program\tentry\tbinding_kind\tbinding\tverdict\tdetail\tref_s\tpar_s\tnotes\n")
        for r in allrows:
            f.write("\t".join([r["program"], r["entry"], r["kind"], r["binding"], r["verdict"],
                               r.get("detail", "").replace("\t", " "),
                               "%.3f" % r["ref_A_s"] if r.get("ref_A_s") is not None else "-",
                               "%.3f" % r["par_A_s"] if r.get("par_A_s") is not None else "-",
                               " | ".join(r["notes"]).replace("\t", " ")]) + "\n")
    # summary per program
    per = {}
    for r in allrows:
        per.setdefault(r["program"], []).append(r)
    okp = [p for p, rs in per.items() if all(r["verdict"] in ("ok", "SKIPPED") for r in rs)
           and any(r["verdict"] == "ok" for r in rs)]
    print("\n%d of %d programs match on every binding run" % (len(okp), len(per)))
    for p, rs in per.items():
        if p not in okp:
            for r in rs:
                if r["verdict"] not in ("ok", "SKIPPED"):
                    print("  %s %s %s: %s %s" % (p, r["entry"], r["binding"], r["verdict"], r.get("detail", "")))


if __name__ == "__main__":
    main()
