"""The kfuse input contract, read by the benchmark (docs: /work/shared/spec/input-format.md,
the project's docs/input-contract.md).

A small, independent reader of what the benchmark needs from a `.cu` file: the annotated
`extern "C"` entries, their C signatures (pointer parameters, scalar parameters with their
C types, the optional cudaStream_t) and their `// kfuse:` directives:

    in|out|inout NAME TYPE[E1][E2]...     buffers, extents are C expressions over scalars
    tune P=V ...  /  check P=V ...          bindings of every scalar parameter
    assume EXPR                             a C fact over the scalars
    init NAME DIST                          normal | uniform(LO,HI) | positive | int(LO,HI)
    tol rtol=R atol=A                       tolerance override

It is not kfuse's front end (that one uses libclang); it is deliberately a second,
independent reading of the same contract, in plain Python with no dependency, so that the
benchmark runs on a GPU host with nothing installed. Errors are reported clang-style as
`file:line:col: error: message` through ContractError.
"""

import re

import cexpr

# Element types of buffers: contract name -> (torch dtype name, bytes per element, kind).
# kind: "float" (floating), "int" (integer), "bool".
TYPES = {
    "float":    ("float32", 4, "float"),
    "double":   ("float64", 8, "float"),
    "half":     ("float16", 2, "float"),
    "bfloat16": ("bfloat16", 2, "float"),
    "int8":     ("int8", 1, "int"),
    "uint8":    ("uint8", 1, "int"),
    "int32":    ("int32", 4, "int"),
    "int64":    ("int64", 8, "int"),
    "bool":     ("bool", 1, "bool"),
}

# The value range of each integer type, used to clip the default int(-100,100) draw.
INT_RANGES = {
    "int8": (-128, 128), "uint8": (0, 256), "int32": (-(1 << 31), 1 << 31),
    "int64": (-(1 << 63), 1 << 63), "bool": (0, 2),
}

# C scalar parameter types -> (ctypes name, is_float). Qualifiers are stripped first.
SCALAR_CTYPES = {
    "int": ("c_int", False), "signed": ("c_int", False), "signed int": ("c_int", False),
    "unsigned": ("c_uint", False), "unsigned int": ("c_uint", False),
    "long": ("c_long", False), "long int": ("c_long", False),
    "unsigned long": ("c_ulong", False),
    "long long": ("c_longlong", False), "long long int": ("c_longlong", False),
    "unsigned long long": ("c_ulonglong", False),
    "short": ("c_short", False), "unsigned short": ("c_ushort", False),
    "char": ("c_byte", False), "signed char": ("c_byte", False),
    "unsigned char": ("c_ubyte", False),
    "int8_t": ("c_int8", False), "uint8_t": ("c_uint8", False),
    "int16_t": ("c_int16", False), "uint16_t": ("c_uint16", False),
    "int32_t": ("c_int32", False), "uint32_t": ("c_uint32", False),
    "int64_t": ("c_int64", False), "uint64_t": ("c_uint64", False),
    "size_t": ("c_size_t", False), "ptrdiff_t": ("c_ssize_t", False),
    "bool": ("c_bool", False),
    "float": ("c_float", True), "double": ("c_double", True),
}

# Default tolerances (rtol, atol) by type kind; integer and bool buffers compare exactly.
DEFAULT_TOL = {
    "float": (1e-4, 1e-5), "double": (1e-4, 1e-5),
    "half": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2),
}

_ROLES = ("in", "out", "inout")
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct"}


class ContractError(Exception):
    """An error in a contract file, formatted `file:line:col: error: message`."""

    def __init__(self, path, line, col, message):
        super().__init__("%s:%d:%d: error: %s" % (path, line, col, message))
        self.path, self.line, self.col, self.message = path, line, col, message


# ---------------------------------------------------------------------------------------
# Data


class Param:
    """One parameter of an entry's C signature.
    kind: "pointer", "scalar" or "stream"; ctype: the C type as written, qualifiers
    removed ("float" for `const float* __restrict__ x`, "int64_t" for a scalar);
    ctypes_name/is_float: for scalars, how ctypes passes it."""

    def __init__(self, name, kind, ctype, ctypes_name=None, is_float=False):
        self.name, self.kind, self.ctype = name, kind, ctype
        self.ctypes_name, self.is_float = ctypes_name, is_float

    def to_json(self):
        return {"name": self.name, "kind": self.kind, "ctype": self.ctype,
                "ctypes": self.ctypes_name, "is_float": self.is_float}


class Buffer:
    """An `in`/`out`/`inout` directive: role, element type (contract name), extents (list
    of cexpr.Expr), init distribution (dist name and bound expressions) and where it was
    written (line)."""

    def __init__(self, name, role, type_, extents, line):
        self.name, self.role, self.type, self.extents, self.line = name, role, type_, extents, line
        self.dist = None        # None (type default), "normal", "uniform", "positive", "int"
        self.dist_args = ()     # (lo Expr, hi Expr) for uniform and int

    @property
    def dtype(self):
        return TYPES[self.type][0]

    @property
    def elem_bytes(self):
        return TYPES[self.type][1]

    @property
    def type_kind(self):
        return TYPES[self.type][2]

    def shape(self, env):
        """The extents evaluated on the scalar values `env` (dict name -> value)."""
        return [e.evaluate_int(env) for e in self.extents]

    def init(self, env):
        """The distribution to draw this buffer from at `env`: ("normal",),
        ("uniform", lo, hi) or ("int", lo, hi) with lo <= v < hi. `positive` is uniform
        between 0.1 and 2. Type defaults: normal for floats, int(-100,100) for integers
        (clipped to the type's range), 0/1 for bool."""
        if self.dist == "normal" or (self.dist is None and self.type_kind == "float"):
            return ("normal",)
        if self.dist == "positive":
            return ("uniform", 0.1, 2.0)
        if self.dist in ("uniform", "int"):
            lo, hi = (a.evaluate(env) for a in self.dist_args)
            return (self.dist, lo, hi)
        if self.type_kind == "bool":
            return ("int", 0, 2)
        lo, hi = INT_RANGES[self.type]
        return ("int", max(-100, lo), min(100, hi))

    def describe(self):
        return "%s %s %s%s" % (self.role, self.name, self.type,
                               "".join("[%s]" % e.text for e in self.extents))


class Binding:
    """A `tune` or `check` line: values (dict scalar name -> int or float, typed per the
    signature), the text as written and its line."""

    def __init__(self, kind, values, text, line):
        self.kind, self.values, self.text, self.line = kind, values, text, line

    def to_json(self):
        return {"kind": self.kind, "values": self.values, "text": self.text, "line": self.line}


class Entry:
    """An annotated extern "C" entry: its name, return type ("void" or "cudaError_t"),
    parameters in order, buffers by name in parameter order, tune/check bindings, assumes
    and the tolerance override (rtol, atol) or None."""

    def __init__(self, name, ret, params, line):
        self.name, self.ret, self.params, self.line = name, ret, params, line
        self.buffers = []       # in pointer-parameter order
        self.tunes = []
        self.checks = []
        self.assumes = []       # (cexpr.Expr, line)
        self.tol = None         # (rtol, atol) or None

    @property
    def scalars(self):
        return [p for p in self.params if p.kind == "scalar"]

    @property
    def has_stream(self):
        return any(p.kind == "stream" for p in self.params)

    def buffer(self, name):
        return next(b for b in self.buffers if b.name == name)

    def tolerance(self, buf):
        """(rtol, atol) for buffer `buf`, or None for an exact comparison."""
        if buf.type_kind != "float":
            return None
        return self.tol if self.tol is not None else DEFAULT_TOL[buf.type]

    def check_assumes(self, env):
        """Returns the text of the first `assume` that `env` violates, or None."""
        for expr, _line in self.assumes:
            if not expr.evaluate(env):
                return expr.text
        return None


# ---------------------------------------------------------------------------------------
# C signatures

# `extern "C"` followed by an optional qualifier, the return type, the name, the
# parameter list and the opening brace of a definition (declarations are skipped).
_ENTRY_RE = re.compile(
    r'extern\s+"C"\s+(?:(?:__host__|static|inline|__attribute__\s*\(\([^)]*\)\))\s+)*'
    r'(?P<ret>[A-Za-z_]\w*)\s+(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^)]*)\)\s*\{')


def _strip_comments(text, strings=True):
    """Blanks out comments (and, with strings=True, the contents of string and character
    literals other than "C"), keeping every offset and newline, so that a regex over the
    result finds code only and its offsets still point into `text`."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif text.startswith('"C"', i):
            i += 3                  # extern "C": keep as it is
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if strings:
                blank(i + 1, j)     # keep the quotes, blank the contents
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _parse_param(text, path, line, col):
    """One C parameter `const float* __restrict__ x` -> Param."""
    text = " ".join(text.split())
    m = re.match(r"^(?P<type>.*?)(?P<name>[A-Za-z_]\w*)\s*(?P<arr>\[\s*\])?$", text)
    if not m or not m.group("type").strip():
        raise ContractError(path, line, col, "cannot read parameter %r" % text)
    name, ctype = m.group("name"), m.group("type")
    pointer = "*" in ctype or m.group("arr") is not None
    words = [w for w in re.findall(r"[A-Za-z_]\w*", ctype) if w not in _QUALIFIERS]
    base = " ".join(words)
    if pointer:
        return Param(name, "pointer", base)
    if base == "cudaStream_t":
        return Param(name, "stream", base)
    if base not in SCALAR_CTYPES:
        raise ContractError(path, line, col,
                            "parameter %r has type %r, which the benchmark cannot pass"
                            % (name, base))
    ctypes_name, is_float = SCALAR_CTYPES[base]
    return Param(name, "scalar", base, ctypes_name, is_float)


def find_signatures(text, path="<input>"):
    """All extern "C" function definitions in `text`: a list of (Entry without
    annotations, line index (0-based) of the line holding `extern`)."""
    code = _strip_comments(text)
    found = []
    for m in _ENTRY_RE.finditer(code):
        line0 = text.count("\n", 0, m.start())
        params = []
        raw = m.group("params").strip()
        if raw and raw != "void":
            offset = m.start("params")
            for piece in raw.split(","):
                pline = text.count("\n", 0, offset) + 1
                pcol = offset - (text.rfind("\n", 0, offset) + 1) + 1
                params.append(_parse_param(piece, path, pline, pcol))
                offset += len(piece) + 1
        found.append((Entry(m.group("name"), m.group("ret"), params, line0 + 1), line0))
    return found


# ---------------------------------------------------------------------------------------
# Annotations

_DIRECTIVE_RE = re.compile(r"^(\s*//\s*kfuse:)\s*(\S+)\s*(.*?)\s*$")
_BUFFER_RE = re.compile(r"^([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*(.*)$")
_INT_LIT = re.compile(r"^[+-]?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")
_FLOAT_LIT = re.compile(r"^[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlL]?$")


def _split_extents(text, err):
    """'[B][(K+3)/4]' -> ['B', '(K+3)/4'] with the column of each, or err(col, msg)."""
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] != "[":
            err(i, "expected '[' in the buffer's extents")
        j = text.find("]", i)
        if j < 0:
            err(i, "unclosed '['")
        out.append((text[i + 1:j], i + 1))
        i = j + 1
    return out


def _split_args(text):
    """'0, C - 1' -> ['0', ' C - 1'] (split at top-level commas)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    parts.append(cur)
    return parts


def _parse_literal(text):
    """A C literal from a tune/check line -> int or float, or None if it is not one."""
    if _INT_LIT.match(text):
        digits = text.rstrip("uUlL")
        sign = -1 if digits.startswith("-") else 1
        digits = digits.lstrip("+-")
        return sign * (int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10))
    if _FLOAT_LIT.match(text):
        return float(text.rstrip("fFlL"))
    return None


def annotation_lines(lines, entry_line0):
    """The run of `//` comment lines directly above line `entry_line0` (0-based): a list
    of (line index, text), top to bottom. A blank or code line ends the run."""
    run = []
    i = entry_line0 - 1
    while i >= 0 and lines[i].lstrip().startswith("//"):
        run.append((i, lines[i]))
        i -= 1
    return run[::-1]


def _annotate(entry, lines, entry_line0, path):
    """Reads the `kfuse:` directives above an entry into it and validates them."""
    pointers = [p.name for p in entry.params if p.kind == "pointer"]
    scalars = {p.name: p for p in entry.params if p.kind == "scalar"}
    buffers = {}
    init_lines = []

    for idx, raw in annotation_lines(lines, entry_line0):
        m = _DIRECTIVE_RE.match(raw)
        if not m:
            continue                    # an ordinary comment among the directives
        lineno = idx + 1
        word, rest = m.group(2), m.group(3)
        word_col = raw.index(word, len(m.group(1))) + 1
        rest_col = (raw.index(rest, word_col - 1 + len(word)) + 1) if rest else len(raw) + 1

        def err(col_in_rest, message, _ln=lineno, _rc=rest_col):
            raise ContractError(path, _ln, _rc + col_in_rest, message)

        def expr(text, col_in_rest):
            try:
                e = cexpr.parse(text)
            except cexpr.ExprError as exc:
                err(col_in_rest + (exc.col or 0), str(exc))
            for name, ncol in e.names():
                if name not in scalars:
                    err(col_in_rest + ncol, "unknown scalar %r" % name)
            return e

        if word in _ROLES:
            bm = _BUFFER_RE.match(rest)
            if not bm:
                err(0, "expected '%s NAME TYPE[E]...'" % word)
            name, type_, ext_text = bm.group(1), bm.group(2), bm.group(3)
            if name not in pointers:
                err(0, "%r is not a pointer parameter of %s" % (name, entry.name))
            if name in buffers:
                err(0, "buffer %r already has a role" % name)
            if type_ not in TYPES:
                err(bm.start(2), "unknown type %r" % type_)
            ext_off = bm.start(3)
            extents = [expr(t, ext_off + c) for t, c in
                       _split_extents(ext_text, lambda c, msg: err(ext_off + c, msg))]
            buffers[name] = Buffer(name, word, type_, extents, lineno)
        elif word in ("tune", "check"):
            values = {}
            norm = re.sub(r"\s*=\s*", "=", rest)
            for tok in norm.split():
                col = rest.find(tok.split("=")[0])
                if "=" not in tok:
                    err(col, "expected NAME=VALUE, got %r" % tok)
                name, val = tok.split("=", 1)
                if name not in scalars:
                    err(col, "%r is not a scalar parameter of %s" % (name, entry.name))
                if name in values:
                    err(col, "%r is bound twice" % name)
                v = _parse_literal(val)
                if v is None:
                    err(col, "%r is not a C literal" % val)
                if scalars[name].is_float:
                    v = float(v)
                elif isinstance(v, float):
                    err(col, "%r is an integer parameter, given %r" % (name, val))
                values[name] = v
            missing = [s for s in scalars if s not in values]
            if missing:
                err(0, "%s line leaves %s unbound" % (word, ", ".join(missing)))
            ordered = {s: values[s] for s in scalars}   # signature order
            (entry.tunes if word == "tune" else entry.checks).append(
                Binding(word, ordered, rest, lineno))
        elif word == "assume":
            if not rest:
                err(0, "assume needs an expression")
            entry.assumes.append((expr(rest, 0), lineno))
        elif word == "init":
            im = re.match(r"^([A-Za-z_]\w*)\s+(\w+)\s*(?:\((.*)\))?\s*$", rest)
            if not im:
                err(0, "expected 'init NAME DIST'")
            init_lines.append((im, lineno, rest_col))
        elif word == "tol":
            rtol = atol = None
            for tok in re.sub(r"\s*=\s*", "=", rest).split():
                key, _, val = tok.partition("=")
                v = _parse_literal(val)
                if key not in ("rtol", "atol") or v is None or v < 0:
                    err(rest.find(tok.split("=")[0]), "expected 'tol rtol=R atol=A', got %r" % tok)
                if key == "rtol":
                    rtol = float(v)
                else:
                    atol = float(v)
            if rtol is None and atol is None:
                err(0, "tol needs rtol= and/or atol=")
            entry.tol = (rtol if rtol is not None else 0.0, atol if atol is not None else 0.0)
        else:
            raise ContractError(path, lineno, word_col, "unknown kfuse directive %r" % word)

    # init lines may come before the buffer they name: resolve them now.
    for im, lineno, rest_col in init_lines:
        def ierr(col, message, _ln=lineno, _rc=rest_col):
            raise ContractError(path, _ln, _rc + col, message)
        name, dist, args = im.group(1), im.group(2), im.group(3)
        if name not in buffers:
            ierr(0, "init names %r, which is not a buffer of %s" % (name, entry.name))
        buf = buffers[name]
        if dist in ("normal", "positive"):
            if args is not None:
                ierr(im.start(2), "%s takes no arguments" % dist)
        elif dist in ("uniform", "int"):
            parts = _split_args(args or "")
            if len(parts) != 2:
                ierr(im.start(2), "%s needs (LO,HI)" % dist)
            bounds = []
            for part in parts:
                try:
                    e = cexpr.parse(part)
                except cexpr.ExprError as exc:
                    ierr(im.start(3) + (exc.col or 0), str(exc))
                for n, ncol in e.names():
                    if n not in scalars:
                        ierr(im.start(3) + ncol, "unknown scalar %r" % n)
                bounds.append(e)
            buf.dist_args = tuple(bounds)
        else:
            ierr(im.start(2), "unknown distribution %r" % dist)
        buf.dist = dist

    for p in pointers:
        if p not in buffers:
            raise ContractError(path, entry.line, 1,
                                "pointer parameter %r of %s has no in/out/inout line" % (p, entry.name))
    entry.buffers = [buffers[p] for p in pointers]
    if not entry.tunes:
        raise ContractError(path, entry.line, 1, "entry %s has no tune line" % entry.name)
    for b in entry.tunes + entry.checks:
        try:
            bad = entry.check_assumes(b.values)
        except cexpr.ExprError as exc:
            raise ContractError(path, b.line, 1, "assume: %s" % exc)
        if bad is not None:
            raise ContractError(path, b.line, 1, "binding violates 'assume %s'" % bad)
        for buf in entry.buffers:
            try:
                shape = buf.shape(b.values)
            except cexpr.ExprError as exc:
                raise ContractError(path, buf.line, 1, "extent of %s: %s" % (buf.name, exc))
            if any(e < 0 for e in shape):
                raise ContractError(path, buf.line, 1, "%s has a negative extent at '%s'"
                                    % (buf.name, b.text))


def parse_file(path, text=None, require_annotations=True):
    """Reads the annotated extern "C" entries of a .cu file; returns {name: Entry} in file
    order. With require_annotations=False, entries without directives are returned too
    (bare signatures, as wanted for a kfuse output whose annotations are not needed)."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.split("\n")
    entries = {}
    for entry, line0 in find_signatures(text, path):
        annotated = any(_DIRECTIVE_RE.match(t) for _, t in annotation_lines(lines, line0))
        if annotated:
            _annotate(entry, lines, line0, path)
        elif require_annotations:
            continue
        entries[entry.name] = entry
    return entries


def same_signature(a, b):
    """True when two entries take the same parameters (kinds and C types, in order) and
    return the same type: a kfuse output must keep the reference's signature."""
    return a.ret == b.ret and [(p.kind, p.ctype) for p in a.params] == \
        [(p.kind, p.ctype) for p in b.params]


def header_lines(text, prefixes=("// kfuse-applied:", "// kfuse-result:")):
    """The lines of a kfuse output that start with one of `prefixes` (its record of what
    was applied and measured), in file order, stripped."""
    return [ln.strip() for ln in text.split("\n")
            if any(ln.strip().startswith(p) for p in prefixes)]


def needed_libraries(text):
    """Which libraries a .cu file needs at link time, by the headers it includes:
    a subset of ["cublas", "cublasLt", "cudnn"]."""
    code = _strip_comments(text, strings=False)
    incs = re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', code, re.M)
    libs = []
    if any(re.match(r"cublas(_v2|_api)?\.h$", i) or i.startswith("cublasXt") for i in incs):
        libs.append("cublas")
    if any(i.startswith("cublasLt") for i in incs):
        libs += ["cublas", "cublasLt"] if "cublas" not in libs else ["cublasLt"]
    if any(i.startswith("cudnn") for i in incs):
        libs.append("cudnn")
    return libs
