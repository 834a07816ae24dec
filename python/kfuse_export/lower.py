"""Lowering ATen core operators to reference CUDA, in eager's style.

Every operator that computes becomes one naive kernel (one thread per output element, or
per row for softmax and the norms; every intermediate in global memory, allocated with
cudaMallocAsync on the entry's stream), or a cuBLAS call where eager calls cuBLAS (the
matrix products). Views (view, permute, expand, slice, select, ...) cost nothing: they are
kept as sizes, strides and an offset over a buffer, and the kernels that read them index
through those. An operator without a lowering is an error naming it and the module's
source line that made it; the exporter never writes a kernel it is unsure of.
"""
import math
import operator
import re

import sympy
import torch

from .cexpr import Printer, as_expr, is_const
from .errors import ExportError

# A reduction this long or longer at every allowed size gets a block per output element.
LONG_REDUCTION = 4096
FEW_ROWS = 16384
BLOCK = 256
# A block-per-row reduction whose rows are this long at the example's sizes, and so few that a
# block each leaves most of the GPU idle, is split: PIECES blocks a row fold its pieces, then a
# block a row folds the pieces in a fixed order. One block would read level1/37's 1.9 billion
# elements (7.5 GB) on one SM.
SPLIT_MIN = 1 << 22
SPLIT_BLOCKS = 1024   # the first kernel's blocks, about
SUM = "{a} += {b};"

aten = torch.ops.aten

CTYPE = {torch.float32: "float", torch.float64: "double", torch.int64: "int64_t",
         torch.int32: "int", torch.int16: "int16_t", torch.int8: "int8_t", torch.uint8: "uint8_t",
         torch.bool: "bool"}
ANNOT = {torch.float32: "float", torch.float64: "double", torch.int64: "int64", torch.int32: "int32",
         torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}
FLOATS = (torch.float32, torch.float64)
# The smallest and the largest value of each integer type (climits), the start of a max and a min.
INT_LIMITS = {torch.int64: ("LLONG_MIN", "LLONG_MAX"), torch.int32: ("INT_MIN", "INT_MAX"),
              torch.int16: ("SHRT_MIN", "SHRT_MAX"), torch.int8: ("SCHAR_MIN", "SCHAR_MAX"),
              torch.uint8: ("0", "UCHAR_MAX"), torch.bool: ("false", "true")}


def ctype(dtype, what="a tensor"):
    if dtype not in CTYPE:
        raise ExportError("%s of type %s: the exporter writes float, double, integer and bool tensors"
                          % (what, str(dtype).replace("torch.", "")))
    return CTYPE[dtype]


class Val:
    """A tensor: a buffer, with sizes, strides (elements) and an offset (sympy)."""

    def __init__(self, buf, dtype, sizes, strides=None, offset=0):
        self.buf = buf
        self.dtype = dtype
        self.sizes = [sympy.sympify(s) for s in sizes]
        self.strides = [sympy.sympify(s) for s in strides] if strides is not None else contiguous(self.sizes)
        self.offset = sympy.sympify(offset)

    @property
    def ndim(self):
        return len(self.sizes)

    def numel(self):
        return sympy.Mul(*self.sizes) if self.sizes else sympy.Integer(1)

    def is_contiguous(self):
        want = contiguous(self.sizes)
        return all(is_const(s, 1) or sympy.simplify(a - b) == 0
                   for s, a, b in zip(self.sizes, self.strides, want))

    def with_(self, sizes, strides, offset=None):
        return Val(self.buf, self.dtype, sizes, strides, self.offset if offset is None else offset)


def contiguous(sizes):
    strides, acc = [], sympy.Integer(1)
    for s in reversed(sizes):
        strides.append(acc)
        acc = acc * s
    return list(reversed(strides))


def flit(value, dtype):
    """A scalar as a C literal of the computation's type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if dtype in FLOATS or isinstance(value, float):
        v = float(value)
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "-INFINITY"
        text = repr(v)
        if "e" not in text and "." not in text:
            text += ".0"
        return text + ("f" if dtype == torch.float32 else "")
    return "%dll" % int(value) if abs(int(value)) > 2**31 - 1 else str(int(value))


def fn(name, dtype):
    """A libm function for the type: expf for float, exp for double."""
    return name + "f" if dtype == torch.float32 else name


class SizeOperand:
    """A size (sympy) used as a pointwise operand, of C type ctype."""

    def __init__(self, expr, ctype):
        self.expr, self.ctype = expr, ctype


class Kernel:
    """A kernel being written: its parameters, and the expressions that read its inputs."""

    def __init__(self, lowering, name):
        self.lw = lowering
        self.name = name
        self.params = []   # (declaration, argument)
        self.bound = {}    # buffer -> parameter name
        self.pr = Printer(lowering.pr.names)
        self.lines = []

    def buffer(self, val, write=False):
        """The kernel's parameter for val's buffer: in0, in1, ... read; out, out1, ... written."""
        key = (val.buf, write)
        if key not in self.bound:
            n = sum(1 for k in self.bound if k[1] == write)
            name = ("out" if n == 0 else "out%d" % n) if write else "in%d" % n
            t = ctype(val.dtype)
            decl = ("%s* __restrict__ %s" if write else "const %s* __restrict__ %s") % (t, name)
            self.params.append((decl, val.buf))
            self.bound[key] = name
        return self.bound[key]

    def at(self, val, coords, write=False):
        """val at the coordinates (C expressions, one per dimension)."""
        terms = []
        for c, size, stride in zip(coords, val.sizes, val.strides):
            if is_const(size, 1) or is_const(stride, 0) or c == "0":
                continue
            terms.append(c if is_const(stride, 1) else "%s * %s" % (_paren(c), self.pr.atom(stride)))
        if not is_const(val.offset, 0):
            terms.insert(0, self.pr(val.offset))
        return "%s[%s]" % (self.buffer(val, write), " + ".join(terms) if terms else "0")

    def read_flat(self, val, out_sizes):
        """val (broadcast to out_sizes) at the flat output index i."""
        lead = len(out_sizes) - val.ndim
        if val.is_contiguous() and [sympy.simplify(a - b) for a, b in zip(val.sizes, out_sizes[lead:])] == [0] * val.ndim:
            buf = self.buffer(val)
            off = "" if is_const(val.offset, 0) else self.pr(val.offset) + " + "
            if lead == 0:
                return "%s[%si]" % (buf, off)
            return "%s[%si %% %s]" % (buf, off, self.pr.atom(val.numel()))
        coords = unflatten("i", out_sizes, self.pr)
        return self.at(val, coords[lead:])

    def write(self, val):
        """The fresh contiguous buffer val at the flat index i."""
        return "%s[i]" % self.buffer(val, write=True)

    def scalar(self, expr):
        """A size as a C expression inside the kernel (its symbols become parameters)."""
        return self.pr(expr)

    def source(self, comment):
        params = [d for d, _ in self.params] + ["int64_t %s" % s for s in sorted(self.pr.used)]
        head = "// %s\n__global__ void %s(%s) {\n" % (comment, self.name, ", ".join(params))
        return head + "".join("  %s\n" % l for l in self.lines) + "}\n"

    def args(self):
        return [a for _, a in self.params] + sorted(self.pr.used)


ATOM = re.compile(r"^-?[A-Za-z_0-9.]+(\[[^\[\]]*\])?f?$")


def _paren(text):
    """text, in parentheses unless it is a name, a number or one subscript."""
    return text if ATOM.match(text) and not text.startswith("-") else "(%s)" % text


def unflatten(index, sizes, pr):
    """The coordinates of a flat row-major index over sizes, as C expressions."""
    coords, n = [], len(sizes)
    for d in range(n):
        inner = sympy.Mul(*sizes[d + 1:]) if d + 1 < n else sympy.Integer(1)
        c = index if is_const(inner, 1) else "%s / %s" % (index, pr.atom(inner))
        if d > 0 and not is_const(sizes[d], 1):
            c = "%s %% %s" % (_paren(c), pr.atom(sizes[d]))
        elif d > 0:
            c = "0"
        coords.append(c)
    return coords


def broadcast_shape(*shapes):
    n = max(len(s) for s in shapes)
    out = []
    for d in range(n):
        size = sympy.Integer(1)
        for s in shapes:
            k = d - (n - len(s))
            if k >= 0 and not is_const(s[k], 1):
                size = s[k]
        out.append(size)
    return out


# Pointwise operators: the C expression over the operands a, b, c (already read) and the
# node's scalar arguments. Float math of the node's computation type.
def _unary(template):
    return lambda lw, node, t, x: template(t, x)


UNARY = {
    "abs": lambda t, x: "%s(%s)" % (fn("fabs", t), x) if t in FLOATS else "(%s < 0 ? -%s : %s)" % (x, x, x),
    "neg": lambda t, x: "-%s" % x,
    "exp": lambda t, x: "%s(%s)" % (fn("exp", t), x),
    "exp2": lambda t, x: "%s(%s)" % (fn("exp2", t), x),
    "expm1": lambda t, x: "%s(%s)" % (fn("expm1", t), x),
    "log": lambda t, x: "%s(%s)" % (fn("log", t), x),
    "log2": lambda t, x: "%s(%s)" % (fn("log2", t), x),
    "log10": lambda t, x: "%s(%s)" % (fn("log10", t), x),
    "log1p": lambda t, x: "%s(%s)" % (fn("log1p", t), x),
    "sqrt": lambda t, x: "%s(%s)" % (fn("sqrt", t), x),
    "rsqrt": lambda t, x: "%s(%s)" % (fn("rsqrt", t), x),
    "sin": lambda t, x: "%s(%s)" % (fn("sin", t), x),
    "cos": lambda t, x: "%s(%s)" % (fn("cos", t), x),
    "tan": lambda t, x: "%s(%s)" % (fn("tan", t), x),
    "asin": lambda t, x: "%s(%s)" % (fn("asin", t), x),
    "acos": lambda t, x: "%s(%s)" % (fn("acos", t), x),
    "atan": lambda t, x: "%s(%s)" % (fn("atan", t), x),
    "sinh": lambda t, x: "%s(%s)" % (fn("sinh", t), x),
    "cosh": lambda t, x: "%s(%s)" % (fn("cosh", t), x),
    "tanh": lambda t, x: "%s(%s)" % (fn("tanh", t), x),
    "asinh": lambda t, x: "%s(%s)" % (fn("asinh", t), x),
    "acosh": lambda t, x: "%s(%s)" % (fn("acosh", t), x),
    "atanh": lambda t, x: "%s(%s)" % (fn("atanh", t), x),
    "erf": lambda t, x: "%s(%s)" % (fn("erf", t), x),
    "erfc": lambda t, x: "%s(%s)" % (fn("erfc", t), x),
    "erfinv": lambda t, x: "%s(%s)" % (fn("erfinv", t), x),
    "floor": lambda t, x: "%s(%s)" % (fn("floor", t), x) if t in FLOATS else x,
    "ceil": lambda t, x: "%s(%s)" % (fn("ceil", t), x) if t in FLOATS else x,
    "round": lambda t, x: "%s(%s)" % (fn("rint", t), x) if t in FLOATS else x,
    "trunc": lambda t, x: "%s(%s)" % (fn("trunc", t), x) if t in FLOATS else x,
    "sign": lambda t, x: "(%s)((%s > 0) - (%s < 0))" % (CTYPE[t], x, x),
    "sgn": lambda t, x: "(%s)((%s > 0) - (%s < 0))" % (CTYPE[t], x, x),
    "reciprocal": lambda t, x: "%s / %s" % (flit(1, t), x),
    "sigmoid": lambda t, x: "%s / (%s + %s(-%s))" % (flit(1, t), flit(1, t), fn("exp", t), x),
    "relu": lambda t, x: "(%s > %s ? %s : %s)" % (x, flit(0, t), x, flit(0, t)),
    "logical_not": lambda t, x: "!%s" % x,
    "bitwise_not": lambda t, x: ("!%s" if t == torch.bool else "~%s") % x,
    "isnan": lambda t, x: "isnan(%s)" % x,
    "isinf": lambda t, x: "isinf(%s)" % x,
    "silu": lambda t, x: "%s / (%s + %s(-%s))" % (x, flit(1, t), fn("exp", t), x),
    "mish": lambda t, x: "%s * %s(%s > %s ? %s : %s(%s(%s)))" % (x, fn("tanh", t), x, flit(20, t), x,
                                                                 fn("log1p", t), fn("exp", t), x),
    "hardswish": lambda t, x: "%s * %s(%s(%s + %s, %s), %s) / %s" % (x, fn("fmin", t), fn("fmax", t), x, flit(3, t),
                                                                    flit(0, t), flit(6, t), flit(6, t)),
    "hardsigmoid": lambda t, x: "%s(%s(%s + %s, %s), %s) / %s" % (fn("fmin", t), fn("fmax", t), x, flit(3, t),
                                                                  flit(0, t), flit(6, t), flit(6, t)),
    "square": lambda t, x: "%s * %s" % (x, x),
}

BINARY = {
    "mul": "{a} * {b}", "maximum": None, "minimum": None,
    "eq": "{a} == {b}", "ne": "{a} != {b}", "lt": "{a} < {b}", "le": "{a} <= {b}", "gt": "{a} > {b}",
    "ge": "{a} >= {b}", "logical_and": "{a} && {b}", "logical_or": "{a} || {b}",
    "logical_xor": "(bool){a} != (bool){b}", "bitwise_and": "{a} & {b}", "bitwise_or": "{a} | {b}",
    "bitwise_xor": "{a} ^ {b}",
}


def _name(target):
    """aten.add.Tensor -> ("add", "Tensor")."""
    text = str(target)
    m = re.match(r"aten\.([a-zA-Z0-9_]+)\.?([A-Za-z0-9_]*)$", text)
    return (m.group(1), m.group(2)) if m else (text, "")


def where(error, node, path):
    """error, placed at the module's source line that made node (its first non-blank column)."""
    line = source_line(node, path)
    if line:
        from .load import _first_col
        error.file, error.line, error.col = path, line, _first_col(path, line)
    return error


def source_line(node, path):
    """(line, text) of the module's source that made node, from its stack trace."""
    trace = node.meta.get("stack_trace") or ""
    line = 0
    for m in re.finditer(r'File "([^"]+)", line (\d+)', trace):
        if path and m.group(1).endswith(path.split("/")[-1]):
            line = int(m.group(2))
    return line


class Lowering:
    """The kernels and the entry's statements of one captured graph."""

    def __init__(self, capture, path, buffer_names, output_names, constants=None):
        self.cap = capture
        self.path = path
        self.pr = Printer(capture.symbols)
        self.kernels = []          # kernel sources
        self.body = []             # the entry's statements
        self.scratch = []          # scratch buffers to free at the end
        self.vals = {}             # node -> Val, a Python value, or a tuple of them
        self.buffer_names = buffer_names  # placeholder node name -> C name
        self.output_names = output_names  # node -> the out buffer it may be written into
        self.constants = constants or {}  # placeholder name -> the number a one-element constant holds
        self.claimed = set()
        self.count = 0
        self.uses_cublas = False
        self.accumulates = False   # products and long sums: the tolerance of float reordering
        self.ops = []              # (op, kernel or call) in order, for the file's head
        self.examples = {}         # symbolic size -> its value in the example inputs
        for node in capture.graph.nodes:
            val = node.meta.get("val") if node.op == "placeholder" else None
            for sz in val.shape if isinstance(val, torch.Tensor) else ():
                hint = getattr(sz.node, "hint", None) if isinstance(sz, torch.SymInt) else None
                if hint is not None and sz.node.expr.is_Symbol:
                    self.examples[sz.node.expr] = int(hint)

    # -- helpers ---------------------------------------------------------------------
    def fail(self, node, message):
        raise where(ExportError(message), node, self.path)

    def meta(self, node):
        val = node.meta.get("val")
        if isinstance(val, (list, tuple)):
            return val
        if not isinstance(val, torch.Tensor):
            self.fail(node, "%s gives no tensor the exporter can place" % node.target)
        return val

    def new(self, node, dtype, sizes, index=None):
        """A fresh contiguous buffer for node's result: the entry's out buffer when node is
        an output the entry writes, else scratch."""
        key = node if index is None else (node, index)
        out = self.output_names.get(key)
        if out is not None and out not in self.claimed:
            self.claimed.add(out)
            return Val(out, dtype, sizes)
        return self._scratch(dtype, sizes)

    def kernel(self, op):
        self.count += 1
        return Kernel(self, "k%d_%s" % (self.count, re.sub(r"[^A-Za-z0-9_]", "_", op)))

    def launch(self, k, n, comment, threads_of="n", per_block=False, pieces=1):
        """Adds k with the guard `if (i >= n) return;` over n threads, or with per_block over
        n blocks of BLOCK threads, one an index (i = blockIdx.x), or over n * pieces blocks,
        pieces an index (i = blockIdx.x / pieces, piece = blockIdx.x % pieces)."""
        k.params.append(("int64_t %s" % threads_of, self.pr(n)))
        if pieces > 1:
            first = "const int64_t i = blockIdx.x / %d, piece = blockIdx.x %% %d;" % (pieces, pieces)
        else:
            first = "const int64_t i = %s;" % ("blockIdx.x" if per_block else
                                                "(int64_t)blockIdx.x * blockDim.x + threadIdx.x")
        k.lines.insert(0, first)
        k.lines.insert(1, "if (i >= %s) return;" % threads_of)
        self.kernels.append(k.source(comment))
        ntext = self.pr(n)
        args = ", ".join(k.args()[:len(k.params) - 1] + [ntext] + k.args()[len(k.params):])
        if pieces > 1:
            grid = "(unsigned)(%s * %d), %d" % (_paren(ntext), pieces, BLOCK)
        else:
            grid = "(unsigned)(%s), %d" % (ntext, BLOCK) if per_block else "(unsigned)((%s + 255) / 256), 256" % ntext
        self.body.append("%s<<<%s, 0, stream>>>(%s);" % (k.name, grid, args))
        self.ops.append(comment)

    def tensor(self, node, arg):
        v = self.vals.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(v, Val):
            self.fail(node, "%s: an argument the exporter cannot place (%r)" % (node.target, arg))
        return v

    def value(self, arg):
        """A Python or size argument: its value (a node's value when it is one)."""
        if isinstance(arg, torch.fx.Node):
            return self.vals.get(arg)
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.value(a) for a in arg)
        return arg

    def materialize(self, node, v, why="copy"):
        """v as a contiguous buffer of its own (a copy kernel), unless it is one already."""
        if v.is_contiguous() and is_const(v.offset, 0):
            return v
        out = self._scratch(v.dtype, v.sizes)
        k = self.kernel(why)
        k.lines.append("%s = %s;" % (k.write(out), k.read_flat(v, v.sizes)))
        self.launch(k, v.numel(), "%s: a contiguous copy of a view" % why)
        return out

    def _scratch(self, dtype, sizes):
        """A scratch buffer, allocated on the entry's stream and freed at its end."""
        self.count += 1
        name = "tmp%d" % self.count
        t = ctype(dtype)
        numel = Val(name, dtype, sizes).numel()
        if numel == 0:
            # empty at every size (a batch norm's saved statistics in eval mode, a GRU's cell
            # state): nothing to allocate, and cudaMallocAsync is not asked for 0 bytes
            self.body.append("%s* %s = nullptr;  // empty" % (t, name))
            return Val(name, dtype, sizes)
        self.body.append("%s* %s;" % (t, name))
        self.body.append("cudaMallocAsync(&%s, %s * sizeof(%s), stream);" % (name, self.pr.atom(numel), t))
        self.scratch.append(name)
        return Val(name, dtype, sizes)

    # -- the graph -------------------------------------------------------------------
    def run(self, graph):
        for node in graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                return node.args[0]
            elif node.op == "get_attr":
                self.fail(node, "a module attribute read inside forward (%s); pass it as a parameter or buffer"
                          % node.target)
        return None

    def placeholder(self, node):
        val = node.meta.get("val")
        if node.name in self.constants:
            self.vals[node] = self.constants[node.name]
        elif isinstance(val, torch.Tensor):
            sizes = [as_expr(s) for s in val.shape]
            self.vals[node] = Val(self.buffer_names[node.name], val.dtype, sizes)
        else:
            self.vals[node] = val

    def call(self, node):
        target = node.target
        if target is operator.getitem:
            seq = self.vals.get(node.args[0])
            self.vals[node] = seq[node.args[1]] if isinstance(seq, (list, tuple)) else None
            return
        if str(target) == "kfuse_export.rnn.default":
            self.vals[node] = self.op_rnn(node)
            return
        if not isinstance(target, torch._ops.OpOverload):
            name = getattr(target, "__name__", str(target))
            if name.startswith("sym_") or target in (operator.mul, operator.add, operator.sub,
                                                      operator.floordiv, operator.mod):
                self.vals[node] = self.symbolic(node)
                return
            self.fail(node, "cannot lower %s: not an ATen operator" % name)
        op, overload = _name(target)
        handler = getattr(self, "op_" + op, None)
        if handler is None and op.endswith("_copy") and getattr(self, "op_" + op[:-5], None):
            # functionalized views (view_copy, permute_copy, ...): nothing writes to them, so
            # the view is exact
            op = op[:-5]
            handler = getattr(self, "op_" + op)
        if handler is None:
            if op in UNARY:
                handler = self.unary
            elif op in BINARY:
                handler = self.binary
            else:
                raise where(ExportError("cannot lower aten.%s%s: the exporter has no kernel for it"
                                        % (op, "." + overload if overload else "")), node, self.path)
        self.vals[node] = handler(node, op, overload)

    def op_sym_size(self, node, op, overload):
        return self.symbolic(node)

    def op__assert_tensor_metadata(self, node, op, overload):
        """A check of the capture's own (torch 2.9 and later put one after each dtype
        conversion): it computes nothing, so it has no kernel."""
        return None

    op__assert_async = op__assert_tensor_metadata
    op__assert_scalar = op__assert_tensor_metadata
    op__functional_assert_async = op__assert_tensor_metadata
    op_sym_constrain_range_for_size = op__assert_tensor_metadata

    op_sym_numel = op_sym_size
    op_sym_stride = op_sym_size

    def symbolic(self, node):
        """A size computed on the host (sym_size and arithmetic on sizes)."""
        val = node.meta.get("val")
        if isinstance(val, torch.SymInt):
            return val.node.expr
        if isinstance(val, int):
            return sympy.Integer(val)
        self.fail(node, "a size computation the exporter cannot follow (%s)" % node.target)

    def out_meta(self, node, index=None):
        m = self.meta(node)
        if index is not None:
            m = m[index]
        return m.dtype, [as_expr(s) for s in m.shape]

    # -- pointwise -------------------------------------------------------------------
    def pointwise(self, node, op, operands, make, out_dtype=None, compute=None):
        """One kernel over node's output: make(t, *read operands) is the element.
        operands: Vals or C literals."""
        dtype, sizes = self.out_meta(node)
        out_dtype = out_dtype or dtype
        t = compute or dtype
        out = self.new(node, out_dtype, sizes)
        k = self.kernel(op)
        reads = []
        for x in operands:
            if isinstance(x, SizeOperand):  # a size, printed in the kernel (its symbols become parameters)
                reads.append("(%s)%s" % (x.ctype, k.pr.atom(x.expr)))
            elif isinstance(x, Val):
                r = k.read_flat(x, sizes)
                if x.dtype != t and t in FLOATS:
                    r = "(%s)%s" % (CTYPE[t], r)
                reads.append(r)
            else:
                reads.append(x)
        k.lines.append("%s = %s;" % (k.write(out), make(t, *reads)))
        self.launch(k, out.numel(), "aten.%s" % op)
        return out

    def operand(self, node, arg, t):
        """A tensor argument (a Val) or a Python scalar (a literal of type t)."""
        if isinstance(arg, torch.fx.Node):
            v = self.vals.get(arg)
            if isinstance(v, Val):
                return v
            if isinstance(v, sympy.Expr):
                return SizeOperand(v, CTYPE.get(t, "float"))
            if isinstance(v, (bool, int, float)):
                return flit(v, t)
            self.fail(node, "%s: an argument the exporter cannot place" % node.target)
        return flit(arg, t)

    def compute_type(self, node):
        dtype, _ = self.out_meta(node)
        if dtype == torch.bool:
            ins = [self.vals.get(a) for a in node.args if isinstance(a, torch.fx.Node)]
            ts = [v.dtype for v in ins if isinstance(v, Val)]
            return torch.float64 if torch.float64 in ts else torch.float32 if torch.float32 in ts else \
                (ts[0] if ts else torch.int64)
        return dtype

    def unary(self, node, op, overload):
        t = self.compute_type(node)
        x = self.tensor(node, node.args[0])
        return self.pointwise(node, op, [x], lambda t_, a: UNARY[op](t_, a), compute=t if t in FLOATS else None)

    def binary(self, node, op, overload):
        t = self.compute_type(node)
        a = self.operand(node, node.args[0], t)
        b = self.operand(node, node.args[1], t)
        if op in ("maximum", "minimum"):
            f = fn("fmax" if op == "maximum" else "fmin", t)
            if t in FLOATS:
                make = lambda t_, x, y: "(isnan(%s) || isnan(%s) ? NAN : %s(%s, %s))" % (x, y, f, x, y)
            else:
                make = lambda t_, x, y: "(%s %s %s ? %s : %s)" % (x, ">" if op == "maximum" else "<", y, x, y)
        else:
            make = lambda t_, x, y: BINARY[op].format(a=_paren(x), b=_paren(y))
        return self.pointwise(node, op, [a, b], make, compute=t)

    def op_add(self, node, op, overload):
        return self._add_sub(node, op, "+")

    def op_sub(self, node, op, overload):
        return self._add_sub(node, op, "-")

    def op_rsub(self, node, op, overload):
        t = self.compute_type(node)
        a = self.operand(node, node.args[0], t)
        b = self.operand(node, node.args[1], t)
        alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
        sb = "%s * %s" % (flit(alpha, t), "{b}") if alpha != 1 else "{b}"
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s - %s" % (
            _paren(sb.format(b=y)) if alpha != 1 else _paren(y), _paren(x)), compute=t)

    def _add_sub(self, node, op, sign):
        t = self.compute_type(node)
        a = self.operand(node, node.args[0], t)
        b = self.operand(node, node.args[1], t)
        alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
        if alpha != 1:
            return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s %s %s * %s" % (
                _paren(x), sign, flit(alpha, t_), _paren(y)), compute=t)
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s %s %s" % (_paren(x), sign, _paren(y)),
                              compute=t)

    def op_div(self, node, op, overload):
        t = self.compute_type(node)
        a = self.operand(node, node.args[0], t)
        b = self.operand(node, node.args[1], t)
        mode = node.kwargs.get("rounding_mode")
        if mode is None or t not in FLOATS and mode == "trunc":
            make = lambda t_, x, y: "%s / %s" % (_paren(x), _paren(y))
        elif mode == "trunc":
            make = lambda t_, x, y: "%s(%s / %s)" % (fn("trunc", t_), _paren(x), _paren(y))
        elif t in FLOATS:
            make = lambda t_, x, y: "%s(%s / %s)" % (fn("floor", t_), _paren(x), _paren(y))
        else:
            self.fail(node, "integer division rounding down is not written yet")
        return self.pointwise(node, op, [a, b], make, compute=t)

    def op_pow(self, node, op, overload):
        t = self.compute_type(node)
        a = self.operand(node, node.args[0], t)
        e = node.args[1]
        if not isinstance(e, torch.fx.Node) and float(e) == 2.0:
            return self.pointwise(node, op, [a], lambda t_, x: "%s * %s" % (_paren(x), _paren(x)), compute=t)
        if not isinstance(e, torch.fx.Node) and float(e) == 0.5 and t in FLOATS:
            return self.pointwise(node, op, [a], lambda t_, x: "%s(%s)" % (fn("sqrt", t_), x), compute=t)
        b = self.operand(node, e, t)
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s(%s, %s)" % (fn("pow", t_), x, y), compute=t)

    def op_fmod(self, node, op, overload):
        t = self.compute_type(node)
        a, b = self.operand(node, node.args[0], t), self.operand(node, node.args[1], t)
        if t in FLOATS:
            return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s(%s, %s)" % (fn("fmod", t_), x, y), compute=t)
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s %% %s" % (_paren(x), _paren(y)), compute=t)

    def op_remainder(self, node, op, overload):
        t = self.compute_type(node)
        a, b = self.operand(node, node.args[0], t), self.operand(node, node.args[1], t)
        if t not in FLOATS:
            self.fail(node, "integer remainder is not written yet")
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s - %s(%s / %s) * %s" % (
            _paren(x), fn("floor", t_), _paren(x), _paren(y), _paren(y)), compute=t)

    def op_atan2(self, node, op, overload):
        t = self.compute_type(node)
        a, b = self.operand(node, node.args[0], t), self.operand(node, node.args[1], t)
        return self.pointwise(node, op, [a, b], lambda t_, x, y: "%s(%s, %s)" % (fn("atan2", t_), x, y), compute=t)

    def op_where(self, node, op, overload):
        t = self.compute_type(node)
        c = self.operand(node, node.args[0], torch.bool)
        a, b = self.operand(node, node.args[1], t), self.operand(node, node.args[2], t)
        return self.pointwise(node, op, [c, a, b], lambda t_, x, y, z: "%s ? %s : %s" % (
            _paren(x), _paren(y), _paren(z)), compute=t)

    def op_clamp(self, node, op, overload):
        lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
        hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
        return self._clamp(node, op, lo, hi)

    def op_clamp_min(self, node, op, overload):
        return self._clamp(node, op, node.args[1], None)

    def op_clamp_max(self, node, op, overload):
        return self._clamp(node, op, None, node.args[1])

    def _clamp(self, node, op, lo, hi):
        """x between lo and hi (either None: unbounded there), NaN kept."""
        t = self.compute_type(node)
        x = self.tensor(node, node.args[0])
        ops = [x] + [self.operand(node, v, t) for v in (lo, hi) if v is not None]

        def make(t_, v, *bounds):
            out, k = v, 0
            if lo is not None:
                out = "%s(%s, %s)" % (fn("fmax", t_), out, bounds[k]) if t_ in FLOATS else \
                    "(%s < %s ? %s : %s)" % (out, bounds[k], bounds[k], out)
                k += 1
            if hi is not None:
                out = "%s(%s, %s)" % (fn("fmin", t_), out, bounds[k]) if t_ in FLOATS else \
                    "(%s > %s ? %s : %s)" % (out, bounds[k], bounds[k], out)
            return out if t_ not in FLOATS else "(isnan(%s) ? %s : %s)" % (v, v, out)
        return self.pointwise(node, op, ops, make, compute=t)

    def op_gelu(self, node, op, overload):
        approx = node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        if approx == "tanh":
            make = lambda t_, v: "%s * %s * (%s + %s(%s * (%s + %s * %s * %s * %s)))" % (
                flit(0.5, t_), _paren(v), flit(1, t_), fn("tanh", t_), flit(0.7978845608028654, t_), v,
                flit(0.044715, t_), _paren(v), _paren(v), _paren(v))
        else:
            make = lambda t_, v: "%s * %s * (%s + %s(%s * %s))" % (
                flit(0.5, t_), _paren(v), flit(1, t_), fn("erf", t_), _paren(v), flit(0.7071067811865476, t_))
        return self.pointwise(node, op, [x], make, compute=t)

    def op_hardtanh(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        lo = node.args[1] if len(node.args) > 1 else -1.0
        hi = node.args[2] if len(node.args) > 2 else 1.0
        return self.pointwise(node, op, [x], lambda t_, v: "%s(%s(%s, %s), %s)" % (
            fn("fmin", t_), fn("fmax", t_), v, flit(lo, t_), flit(hi, t_)), compute=t)

    def op_leaky_relu(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        slope = node.args[1] if len(node.args) > 1 else 0.01
        return self.pointwise(node, op, [x], lambda t_, v: "(%s > %s ? %s : %s * %s)" % (
            v, flit(0, t_), v, _paren(v), flit(slope, t_)), compute=t)

    def op_elu(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        alpha, scale, iscale = (list(node.args[1:]) + [1.0, 1.0, 1.0])[:3]
        return self.pointwise(node, op, [x], lambda t_, v: "(%s > %s ? %s * %s : %s * %s * %s(%s * %s))" % (
            v, flit(0, t_), flit(scale, t_), _paren(v), flit(scale, t_), flit(alpha, t_), fn("expm1", t_), _paren(v),
            flit(iscale, t_)), compute=t)

    def op_softplus(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        beta = node.args[1] if len(node.args) > 1 else 1.0
        thr = node.args[2] if len(node.args) > 2 else 20.0
        return self.pointwise(node, op, [x], lambda t_, v: "(%s * %s > %s ? %s : %s(%s(%s * %s)) / %s)" % (
            _paren(v), flit(beta, t_), flit(thr, t_), v, fn("log1p", t_), fn("exp", t_), _paren(v), flit(beta, t_),
            flit(beta, t_)), compute=t)

    def op_threshold(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        thr, value = node.args[1], node.args[2]
        return self.pointwise(node, op, [x], lambda t_, v: "(%s > %s ? %s : %s)" % (
            v, flit(thr, t_), v, flit(value, t_)), compute=t)

    def op_logit(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        t = self.compute_type(node)
        return self.pointwise(node, op, [x], lambda t_, v: "%s(%s / (%s - %s))" % (
            fn("log", t_), _paren(v), flit(1, t_), _paren(v)), compute=t)

    def op_lerp(self, node, op, overload):
        t = self.compute_type(node)
        a, b, w = (self.operand(node, x, t) for x in node.args[:3])
        return self.pointwise(node, op, [a, b, w], lambda t_, x, y, z: "%s + %s * (%s - %s)" % (
            _paren(x), _paren(z), y, x), compute=t)

    def op__to_copy(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dtype, _ = self.out_meta(node)
        return self.pointwise(node, "to_" + ANNOT.get(dtype, "copy"), [x],
                              lambda t_, v: "(%s)%s" % (ctype(dtype), v), compute=dtype)

    def op_clone(self, node, op, overload):
        if not isinstance(self.vals.get(node.args[0]), Val):  # a one-element constant: a number
            return self.vals.get(node.args[0])
        x = self.tensor(node, node.args[0])
        return self.pointwise(node, op, [x], lambda t_, v: v)

    def op_copy(self, node, op, overload):
        x = self.tensor(node, node.args[1])
        dtype, _ = self.out_meta(node)
        return self.pointwise(node, op, [x], lambda t_, v: "(%s)%s" % (ctype(dtype), v), compute=dtype)

    def op_alias(self, node, op, overload):
        v = self.vals.get(node.args[0])
        return v if not isinstance(v, Val) else self.tensor(node, node.args[0])

    op_lift_fresh_copy = op_clone
    op_detach = op_alias

    def op_full(self, node, op, overload):
        dtype, sizes = self.out_meta(node)
        value = node.args[1]
        return self.pointwise(node, op, [], lambda t_: flit(value, dtype), compute=dtype)

    def op_full_like(self, node, op, overload):
        dtype, sizes = self.out_meta(node)
        value = node.args[1]
        return self.pointwise(node, op, [], lambda t_: flit(value, dtype), compute=dtype)

    def op_scalar_tensor(self, node, op, overload):
        dtype, _ = self.out_meta(node)
        value = node.args[0]
        return self.pointwise(node, op, [], lambda t_: flit(value, dtype), compute=dtype)

    def op_zeros_like(self, node, op, overload):
        dtype, _ = self.out_meta(node)
        return self.pointwise(node, op, [], lambda t_: flit(0, dtype), compute=dtype)

    def op_ones_like(self, node, op, overload):
        dtype, _ = self.out_meta(node)
        return self.pointwise(node, op, [], lambda t_: flit(1, dtype), compute=dtype)

    def op_arange(self, node, op, overload):
        dtype, sizes = self.out_meta(node)
        args = list(node.args)
        if overload == "start_step":
            start, step = args[0], args[2] if len(args) > 2 else 1
        elif overload == "start":
            start, step = args[0], 1
        else:
            start, step = 0, 1
        return self.pointwise(node, op, [], lambda t_: "%s + (%s)i * %s" % (
            flit(start, dtype), ctype(dtype), flit(step, dtype)), compute=dtype)

    # -- views: sizes, strides and offsets; no kernel ------------------------------------
    def op_view(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        _, sizes = self.out_meta(node)
        if not x.is_contiguous():
            x = self.materialize(node, x, "view_copy")
        return Val(x.buf, x.dtype, sizes, None, x.offset)

    op__unsafe_view = op_view
    op_reshape = op_view

    def op_permute(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = [d % x.ndim for d in node.args[1]]
        return x.with_([x.sizes[d] for d in dims], [x.strides[d] for d in dims])

    def op_t(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        if x.ndim < 2:
            return x
        return x.with_(x.sizes[::-1], x.strides[::-1])

    def op_transpose(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        a, b = node.args[1] % x.ndim, node.args[2] % x.ndim
        sizes, strides = list(x.sizes), list(x.strides)
        sizes[a], sizes[b] = sizes[b], sizes[a]
        strides[a], strides[b] = strides[b], strides[a]
        return x.with_(sizes, strides)

    def op_expand(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        _, sizes = self.out_meta(node)
        lead = len(sizes) - x.ndim
        strides = [sympy.Integer(0)] * lead
        for d in range(x.ndim):
            same = sympy.simplify(x.sizes[d] - sizes[lead + d]) == 0
            strides.append(x.strides[d] if same else sympy.Integer(0))
        return x.with_(sizes, strides)

    def op_unsqueeze(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        d = node.args[1] % (x.ndim + 1)
        stride = x.strides[d] * x.sizes[d] if d < x.ndim else sympy.Integer(1)
        return x.with_(x.sizes[:d] + [sympy.Integer(1)] + x.sizes[d:], x.strides[:d] + [stride] + x.strides[d:])

    def op_squeeze(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        if len(node.args) > 1:
            dims = node.args[1] if isinstance(node.args[1], (list, tuple)) else [node.args[1]]
            dims = {d % max(x.ndim, 1) for d in dims}
        else:
            dims = set(range(x.ndim))
        keep = [d for d in range(x.ndim) if not (d in dims and is_const(x.sizes[d], 1))]
        return x.with_([x.sizes[d] for d in keep], [x.strides[d] for d in keep])

    def op_slice(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        args = list(node.args) + [None] * 5
        dim = (args[1] if args[1] is not None else 0) % x.ndim
        start = args[2] if args[2] is not None else 0
        step = args[4] if args[4] is not None else 1
        _, sizes = self.out_meta(node)
        if isinstance(start, torch.fx.Node):
            self.fail(node, "a slice with a computed start")
        if start < 0:
            start = x.sizes[dim] + start
        strides = list(x.strides)
        strides[dim] = strides[dim] * step
        return Val(x.buf, x.dtype, sizes, strides, x.offset + sympy.sympify(start) * x.strides[dim])

    def op_select(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dim, index = node.args[1] % x.ndim, node.args[2]
        if index < 0:
            index = x.sizes[dim] + index
        return Val(x.buf, x.dtype, x.sizes[:dim] + x.sizes[dim + 1:], x.strides[:dim] + x.strides[dim + 1:],
                   x.offset + sympy.sympify(index) * x.strides[dim])

    def op_split_with_sizes(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dim = (node.args[2] if len(node.args) > 2 else 0) % x.ndim
        out, start = [], sympy.Integer(0)
        for i, m in enumerate(self.meta(node)):
            size = as_expr(m.shape[dim])
            sizes = list(x.sizes)
            sizes[dim] = size
            out.append(Val(x.buf, x.dtype, sizes, x.strides, x.offset + start * x.strides[dim]))
            start = start + size
        return out

    op_split = op_split_with_sizes

    def op_unbind(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dim = (node.args[1] if len(node.args) > 1 else 0) % x.ndim
        return [Val(x.buf, x.dtype, x.sizes[:dim] + x.sizes[dim + 1:], x.strides[:dim] + x.strides[dim + 1:],
                    x.offset + i * x.strides[dim]) for i in range(int(x.sizes[dim]))]

    def op_unfold(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dim, step = node.args[1] % max(x.ndim, 1), node.args[3]
        _, sizes = self.out_meta(node)
        strides = list(x.strides)
        strides[dim] = strides[dim] * step
        return Val(x.buf, x.dtype, sizes, strides + [x.strides[dim]], x.offset)

    def op_as_strided(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        if not (x.is_contiguous() and is_const(x.offset, 0)):
            x = self.materialize(node, x, "as_strided_copy")
        offset = node.args[3] if len(node.args) > 3 else 0
        return Val(x.buf, x.dtype, [as_expr(s) for s in node.args[1]], [as_expr(s) for s in node.args[2]],
                   as_expr(offset))

    def op_diagonal(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        off = node.args[1] if len(node.args) > 1 else 0
        d1 = (node.args[2] if len(node.args) > 2 else 0) % x.ndim
        d2 = (node.args[3] if len(node.args) > 3 else 1) % x.ndim
        _, sizes = self.out_meta(node)
        keep = [d for d in range(x.ndim) if d not in (d1, d2)]
        start = off * x.strides[d2] if off >= 0 else -off * x.strides[d1]
        return Val(x.buf, x.dtype, sizes, [x.strides[d] for d in keep] + [x.strides[d1] + x.strides[d2]],
                   x.offset + start)

    # -- copies into new layouts --------------------------------------------------------
    def op_cat(self, node, op, overload):
        parts = [self.tensor(node, a) for a in node.args[0]]
        dtype, sizes = self.out_meta(node)
        dim = (node.args[1] if len(node.args) > 1 else 0) % len(sizes)
        parts = [p for p in parts if not (p.ndim == 1 and is_const(p.sizes[0], 0))]
        out = self.new(node, dtype, sizes)
        start = sympy.Integer(0)
        for p in parts:
            k = self.kernel("cat")
            coords = unflatten("i", p.sizes, k.pr)
            dst = Val(out.buf, dtype, p.sizes, out.strides, out.offset + start * out.strides[dim])
            k.lines.append("%s = %s;" % (k.at(dst, coords, write=True), k.at(p, coords)))
            self.launch(k, p.numel(), "aten.cat: one input into its place along dimension %d" % dim)
            start = start + p.sizes[dim]
        return out

    def op_constant_pad_nd(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        pad = list(node.args[1])
        value = node.args[2] if len(node.args) > 2 else 0
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel("constant_pad")
        coords = unflatten("i", sizes, k.pr)
        conds, src = [], []
        for d in range(len(sizes)):
            j = (len(sizes) - 1 - d) * 2
            before = pad[j] if j < len(pad) else 0
            c = coords[d] if before == 0 else "(%s - %d)" % (coords[d], before)
            if j < len(pad):
                conds.append("%s >= 0 && %s < %s" % (c, c, k.pr.atom(x.sizes[d])))
            src.append(c)
        read = k.at(x, src)
        k.lines.append("%s = %s ? %s : %s;" % (k.write(out), " && ".join(conds) or "true", read, flit(value, dtype)))
        self.launch(k, out.numel(), "aten.constant_pad_nd")
        return out

    def op_flip(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = [d % x.ndim for d in node.args[1]]
        strides = [(-s if d in dims else s) for d, s in enumerate(x.strides)]
        offset = x.offset + sum((x.sizes[d] - 1) * x.strides[d] for d in dims)
        return self.materialize(node, Val(x.buf, x.dtype, x.sizes, strides, offset), "flip")

    def op_embedding(self, node, op, overload):
        w, idx = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel("embedding")
        dim = w.sizes[1]
        k.lines.append("const int64_t row = i / %s, col = i %% %s;" % (k.pr.atom(dim), k.pr.atom(dim)))
        k.lines.append("%s = %s;" % (k.write(out), k.at(w, ["%s" % k.at(idx, unflatten("row", idx.sizes, k.pr)), "col"])))
        self.launch(k, out.numel(), "aten.embedding")
        return out

    def op_index_select(self, node, op, overload):
        return self._indexed(node, op, whole=False)

    def op_gather(self, node, op, overload):
        return self._indexed(node, op, whole=True)

    def _indexed(self, node, op, whole):
        """index_select (the index names a slice along dim: idx[coordinate]) and gather (an
        index per output element: idx[coordinates])."""
        x, dim, idx = self.tensor(node, node.args[0]), node.args[1], self.tensor(node, node.args[2])
        dtype, sizes = self.out_meta(node)
        dim %= x.ndim
        out = self.new(node, dtype, sizes)
        k = self.kernel(op)
        coords = unflatten("i", sizes, k.pr)
        src = list(coords)
        src[dim] = k.at(idx, coords if whole else [coords[dim]])
        k.lines.append("%s = %s;" % (k.write(out), k.at(x, src)))
        self.launch(k, out.numel(), "aten.%s along dimension %d" % (op, dim))
        return out

    # -- reductions: one thread per output element, a loop over the reduced ones. Where the
    # reduced count is long (at least LONG_REDUCTION however small the symbolic sizes) and
    # either the reduced elements of a row are contiguous (a block reads them coalesced, one
    # thread per row would not) or the rows are few at the example's sizes (fewer than
    # FEW_ROWS: threads of their own would leave the GPU idle), one block per output element,
    # as eager's reduction kernels do: each thread folds a strided part, then a fixed-order
    # tree in shared memory (deterministic) -------------------------------------------------
    def _reduce_dims(self, x, dims):
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            return list(range(x.ndim))
        if not isinstance(dims, (list, tuple)):
            dims = [dims]
        return sorted({d % max(x.ndim, 1) for d in dims})

    def _long(self, count):
        """Whether a reduced count is long at every size the entry allows (its symbols at 2, the
        smallest the exported entry assumes)."""
        count = sympy.sympify(count)
        low = count.subs({sym: 2 for sym in count.free_symbols})
        return is_const(low) and int(low) >= LONG_REDUCTION

    def reduction(self, node, op, x, dims, init, step, finish, acc_type, out_index=None, extra=None,
                  out_dtype=None, combine=None):
        """out = finish(fold of step over the reduced elements). step/finish are format strings over
        {acc}, {v} (the element), {r} (the flat reduced index) and {n} (the reduced count); combine,
        over {a} and {b}, folds a partial result b into a (None: the fold has no such form, as for
        an index of the extreme, and stays one thread per output)."""
        m = self.meta(node)
        m = m[out_index] if out_index is not None else m
        dtype = out_dtype or m.dtype
        sizes = [as_expr(s) for s in m.shape]
        out = self.new(node, dtype, sizes, index=out_index)
        k = self.kernel(op)
        count = sympy.Mul(*[x.sizes[d] for d in dims])
        coords, _, n = self._rows(k, x, dims)
        at = k.at(x, coords)
        acc_c = CTYPE[acc_type] if acc_type in CTYPE else acc_type
        comment = "aten.%s over dimension%s %s" % (op, "s" if len(dims) > 1 else "", ", ".join(map(str, dims)))
        flat = x.is_contiguous() and is_const(x.offset, 0) and dims == list(range(x.ndim - len(dims), x.ndim))
        rows = sympy.sympify(out.numel()).subs(self.examples)
        few = is_const(rows) and int(rows) < FEW_ROWS
        blocks = combine is not None and not extra and self._long(count) and (flat or few)
        pieces = self._pieces(rows, count) if blocks and few else 1
        if blocks and flat:
            at = "%s[i * %s + r]" % (k.buffer(x), k.pr.atom(count))  # the rows are contiguous: no index arithmetic
        k.lines.append("%s acc = %s;" % (acc_c, init))
        if extra:
            k.lines.extend(extra)
        if pieces > 1:
            k.lines.append("for (int64_t r = piece * blockDim.x + threadIdx.x; r < %s; r += %d * blockDim.x) {"
                           % (n, pieces))
        elif blocks:
            k.lines.append("for (int64_t r = threadIdx.x; r < %s; r += blockDim.x) {" % n)
        else:
            k.lines.append("for (int64_t r = 0; r < %s; ++r) {" % n)
        k.lines.append("  const %s v = %s;" % (acc_c, at))
        for line in step if isinstance(step, list) else [step]:
            k.lines.append("  " + line.format(acc="acc", v="v", r="r", n=n))
        k.lines.append("}")
        if is_const(count) and int(count) >= 256 or not is_const(count):
            self.accumulates = True
        if not blocks:
            k.lines.append("%s = %s;" % (k.write(out), finish.format(acc="acc", n=n)))
            self.launch(k, out.numel(), comment)
            return out
        k.lines += self._tree(acc_c, combine)
        if pieces > 1:
            # the pieces' results in scratch, then a block a row folds them in a fixed order
            partial = self._scratch(acc_type, [out.numel() * pieces])
            k.lines += ["if (threadIdx.x == 0)",
                        "  %s[i * %d + piece] = part[0];" % (k.buffer(partial, write=True), pieces)]
            self.launch(k, out.numel(), comment + ", %d blocks per output element, each a piece" % pieces,
                        per_block=True, pieces=pieces)
            k = self.kernel(op)
            k.lines += ["%s acc = %s;" % (acc_c, init),
                        "for (int64_t p = threadIdx.x; p < %d; p += blockDim.x) {" % pieces,
                        "  %s" % combine.format(a="acc", b="%s[i * %d + p]" % (k.buffer(partial), pieces)),
                        "}"]
            k.lines += self._tree(acc_c, combine)
            n = k.pr(count) if "{n}" in finish else n  # a size the second kernel prints as its own
            comment += ": the %d pieces of each output element, in order" % pieces
        k.lines += ["if (threadIdx.x == 0) {",
                    "  acc = part[0];",
                    "  %s = %s;" % (k.write(out), finish.format(acc="acc", n=n)),
                    "}"]
        self.launch(k, out.numel(), comment + ("" if pieces > 1 else ", a block per output element"), per_block=True)
        return out

    def _pieces(self, rows, count):
        """The blocks a row of a block-per-row reduction is split into (1: not split): rows
        and count at the example's sizes."""
        rows, count = sympy.sympify(rows), sympy.sympify(count).subs(self.examples)
        if not is_const(rows) or not is_const(count) or int(count) < SPLIT_MIN:
            return 1
        pieces = min(SPLIT_BLOCKS // max(int(rows), 1), int(count) // (BLOCK * 64))
        return pieces if pieces >= 2 else 1

    @staticmethod
    def _tree(acc_c, combine):
        """The lines folding each thread's acc into part[0] in a fixed order (a shared tree)."""
        return ["__shared__ %s part[%d];" % (acc_c, BLOCK),
                "part[threadIdx.x] = acc;",
                "__syncthreads();",
                "for (int s = %d; s > 0; s >>= 1) {" % (BLOCK // 2),
                "  if (threadIdx.x < s) { %s }" % combine.format(a="part[threadIdx.x]", b="part[threadIdx.x + s]"),
                "  __syncthreads();",
                "}"]

    def _acc(self, x):
        return torch.float64 if x.dtype in FLOATS else torch.int64

    def op_sum(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        dtype, _ = self.out_meta(node)
        acc = torch.float64 if dtype in FLOATS else torch.int64
        return self.reduction(node, op, x, dims, "0", "{acc} += {v};", "(%s){acc}" % CTYPE[dtype], acc,
                              combine=SUM)

    def op_mean(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        dtype, _ = self.out_meta(node)
        return self.reduction(node, op, x, dims, "0", "{acc} += {v};", "(%s)({acc} / (double)({n}))" % CTYPE[dtype],
                              torch.float64, combine=SUM)

    def op_prod(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 and overload != "default" else None)
        dtype, _ = self.out_meta(node)
        return self.reduction(node, op, x, dims, "1", "{acc} *= {v};", "(%s){acc}" % CTYPE[dtype], self._acc(x),
                              combine="{a} *= {b};")

    def _extreme(self, node, op, largest, index=None, out_index=None):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        t = x.dtype
        cmp = ">" if largest else "<"
        if t in FLOATS:
            init = "-INFINITY" if largest else "INFINITY"
            step = "if ({v} %s {acc} || isnan({v})) {acc} = {v};" % cmp
            if index:
                step = ["if ({r} == 0 || !isnan({acc}) && ({v} %s {acc} || isnan({v}))) {{ {acc} = {v}; at = {r}; }}" % cmp]
        else:
            init = INT_LIMITS[t][0 if largest else 1]  # the element type's own: the accumulator has that type
            step = "if ({v} %s {acc}) {acc} = {v};" % cmp
            if index:
                step = ["if ({v} %s {acc} || {r} == 0) {{ {acc} = {v}; at = {r}; }}" % cmp]
        if index:
            return self.reduction(node, op, x, dims, init, step, "at", t, out_index=out_index,
                                  extra=["int64_t at = 0;"], out_dtype=torch.int64)
        merge = step.format(acc="{a}", v="{b}")
        return self.reduction(node, op, x, dims, init, step, "{acc}", t, out_index=out_index, combine=merge)

    def op_amax(self, node, op, overload):
        return self._extreme(node, op, True)

    def op_amin(self, node, op, overload):
        return self._extreme(node, op, False)

    def op_argmax(self, node, op, overload):
        return self._extreme(node, op, True, index=True)

    def op_argmin(self, node, op, overload):
        return self._extreme(node, op, False, index=True)

    def _used(self, node, index):
        """Whether the index-th result of node is read."""
        return any(u.target is operator.getitem and u.args[1] == index and (u.users or u in self.output_names)
                   for u in node.users)

    def op_max(self, node, op, overload):
        if overload == "dim":  # values and indices, each computed where it is read
            return [self._extreme(node, "max", True, out_index=0) if self._used(node, 0) else None,
                    self._extreme(node, "argmax", True, index=True, out_index=1) if self._used(node, 1) else None]
        return self._extreme(node, op, True)

    def op_min(self, node, op, overload):
        if overload == "dim":
            return [self._extreme(node, "min", False, out_index=0) if self._used(node, 0) else None,
                    self._extreme(node, "argmin", False, index=True, out_index=1) if self._used(node, 1) else None]
        return self._extreme(node, op, False)

    def op_any(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        return self.reduction(node, op, x, dims, "false", "{acc} = {acc} || ({v} != 0);", "{acc}", torch.bool,
                              combine="{a} = {a} || {b};")

    def op_all(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        return self.reduction(node, op, x, dims, "true", "{acc} = {acc} && ({v} != 0);", "{acc}", torch.bool,
                              combine="{a} = {a} && {b};")

    def op_var(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        corr = node.kwargs.get("correction", 1)
        corr = 1 if corr is None else corr
        dtype, _ = self.out_meta(node)
        return self._var(node, op, x, dims, corr, dtype)

    def _var(self, node, op, x, dims, corr, dtype, std=False):
        m = self.meta(node)
        sizes = [as_expr(s) for s in m.shape]
        out = self.new(node, dtype, sizes)
        k = self.kernel(op)
        coords, _, n = self._rows(k, x, dims)
        at = k.at(x, coords)
        k.lines += ["double sum = 0, sq = 0;",
                    "for (int64_t r = 0; r < %s; ++r) sum += %s;" % (n, at),
                    "const double mean = sum / (double)(%s);" % n,
                    "for (int64_t r = 0; r < %s; ++r) { const double d = %s - mean; sq += d * d; }" % (n, at),
                    "const double var = sq / (double)(%s - %s);" % (n, corr),
                    "%s = (%s)%s;" % (k.write(out), CTYPE[dtype], "sqrt(var)" if std else "var")]
        self.accumulates = True
        self.launch(k, out.numel(), "aten.%s over dimensions %s (correction %s)" % (op, dims, corr))
        return out

    def op_std(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1] if len(node.args) > 1 else None)
        corr = node.kwargs.get("correction", 1)
        dtype, _ = self.out_meta(node)
        return self._var(node, op, x, dims, 1 if corr is None else corr, dtype, std=True)

    # -- scans: one thread per line along the dimension --------------------------------
    def _scan(self, node, op, combine, init):
        x = self.tensor(node, node.args[0])
        dim = node.args[1] % max(x.ndim, 1)
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel(op)
        others = [d for d in range(x.ndim) if d != dim]
        coords = [None] * x.ndim
        for d, c in zip(others, unflatten("i", [x.sizes[d] for d in others], k.pr)):
            coords[d] = c
        coords[dim] = "j"
        acc = "double" if dtype in FLOATS else "int64_t"
        k.lines.append("%s acc = %s;" % (acc, init))
        k.lines.append("for (int64_t j = 0; j < %s; ++j) {" % k.pr(x.sizes[dim]))
        k.lines.append("  acc = %s;" % combine.format(acc="acc", v=k.at(x, coords)))
        k.lines.append("  %s = (%s)acc;" % (k.at(out, coords, write=True), CTYPE[dtype]))
        k.lines.append("}")
        self.accumulates = True
        lines = sympy.Mul(*[x.sizes[d] for d in others]) if others else sympy.Integer(1)
        self.launch(k, lines, "aten.%s along dimension %d, one thread per line" % (op, dim))
        return out

    def op_cumsum(self, node, op, overload):
        return self._scan(node, op, "{acc} + {v}", "0")

    def op_cumprod(self, node, op, overload):
        return self._scan(node, op, "{acc} * {v}", "1")

    # -- softmax and the norms: one thread per row ---------------------------------------
    def _rows(self, k, x, dims):
        """Coordinates with the kept dimensions from i and the reduced ones from r; the number
        of rows; the reduced count (C)."""
        kept = [d for d in range(x.ndim) if d not in dims]
        coords = [None] * x.ndim
        for d, c in zip(kept, unflatten("i", [x.sizes[d] for d in kept], k.pr)):
            coords[d] = c
        for d, c in zip(dims, unflatten("r", [x.sizes[d] for d in dims], k.pr)):
            coords[d] = c
        rows = sympy.Mul(*[x.sizes[d] for d in kept]) if kept else sympy.Integer(1)
        return coords, rows, k.pr(sympy.Mul(*[x.sizes[d] for d in dims]))

    def _softmax(self, node, op, log):
        x = self.tensor(node, node.args[0])
        dim = node.args[1] % max(x.ndim, 1)
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel(op)
        coords, rows, n = self._rows(k, x, [dim])
        t = CTYPE[dtype]
        at, dst = k.at(x, coords), k.at(out, coords, write=True)
        k.lines += ["%s m = -INFINITY;" % t,
                    "for (int64_t r = 0; r < %s; ++r) m = %s(m, %s);" % (n, fn("fmax", dtype), at),
                    "%s s = 0;" % t,
                    "for (int64_t r = 0; r < %s; ++r) s += %s(%s - m);" % (n, fn("exp", dtype), at)]
        if log:
            k.lines.append("const %s ls = %s(s);" % (t, fn("log", dtype)))
            k.lines.append("for (int64_t r = 0; r < %s; ++r) %s = %s - m - ls;" % (n, dst, at))
        else:
            k.lines.append("for (int64_t r = 0; r < %s; ++r) %s = %s(%s - m) / s;" % (n, dst, fn("exp", dtype), at))
        self.launch(k, rows, "aten.%s along dimension %d, one thread per row" % (op, dim))
        return out

    def op__softmax(self, node, op, overload):
        return self._softmax(node, "softmax", False)

    def op__log_softmax(self, node, op, overload):
        return self._softmax(node, "log_softmax", True)

    def op_logsumexp(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        dims = self._reduce_dims(x, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel(op)
        coords, rows, n = self._rows(k, x, dims)
        t = CTYPE[dtype]
        at = k.at(x, coords)
        k.lines += ["%s m = -INFINITY;" % t,
                    "for (int64_t r = 0; r < %s; ++r) m = %s(m, %s);" % (n, fn("fmax", dtype), at),
                    "if (isinf(m)) m = 0;",
                    "%s s = 0;" % t,
                    "for (int64_t r = 0; r < %s; ++r) s += %s(%s - m);" % (n, fn("exp", dtype), at),
                    "%s = %s(s) + m;" % (k.write(out), fn("log", dtype))]
        self.launch(k, rows, "aten.logsumexp over dimensions %s, one thread per row" % dims)
        return out

    def op_native_layer_norm(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        shape = node.args[1]
        w = self.vals.get(node.args[2]) if node.args[2] is not None else None
        b = self.vals.get(node.args[3]) if node.args[3] is not None else None
        eps = node.args[4]
        dims = list(range(x.ndim - len(shape), x.ndim))
        dtype, sizes = self.out_meta(node, 0)
        out = self.new(node, dtype, sizes, index=0)
        m1 = self.meta(node)[1]
        mean = self.new(node, m1.dtype, [as_expr(s) for s in m1.shape], index=1)
        rstd = self.new(node, m1.dtype, [as_expr(s) for s in m1.shape], index=2)
        k = self.kernel("layer_norm")
        coords, rows, n = self._rows(k, x, dims)
        wc = [coords[d] for d in dims]
        at, dst = k.at(x, coords), k.at(out, coords, write=True)
        y = "(%s - mean) * rstd" % at
        if w is not None:
            y = "%s * %s" % (_paren(y), k.at(w, wc))
        if b is not None:
            y = "%s + %s" % (y, k.at(b, wc))
        k.lines += ["double sum = 0, sq = 0;",
                    "for (int64_t r = 0; r < %s; ++r) sum += %s;" % (n, at),
                    "const double mu = sum / (double)(%s);" % n,
                    "for (int64_t r = 0; r < %s; ++r) { const double d = %s - mu; sq += d * d; }" % (n, at),
                    "const float mean = (float)mu;",
                    "const float rstd = (float)(1.0 / sqrt(sq / (double)(%s) + %s));" % (n, flit(eps, torch.float64)),
                    "for (int64_t r = 0; r < %s; ++r) %s = %s;" % (n, dst, y),
                    "%s = mean;" % k.write(mean),
                    "%s = rstd;" % k.write(rstd)]
        self.accumulates = True
        self.launch(k, rows, "aten.native_layer_norm over the last %d dimension%s, one thread per row"
                    % (len(shape), "s" if len(shape) > 1 else ""))
        return [out, mean, rstd]

    def op_native_group_norm(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        w = self.vals.get(node.args[1]) if node.args[1] is not None else None
        b = self.vals.get(node.args[2]) if node.args[2] is not None else None
        N, C, HxW, G, eps = (self.value(a) for a in node.args[3:8])
        N, C, HxW = (sympy.sympify(v) for v in (N, C, HxW))
        dtype, sizes = self.out_meta(node, 0)
        out = self.new(node, dtype, sizes, index=0)
        m1 = self.meta(node)[1]
        mean = self.new(node, m1.dtype, [as_expr(s) for s in m1.shape], index=1)
        rstd = self.new(node, m1.dtype, [as_expr(s) for s in m1.shape], index=2)
        if not x.is_contiguous():
            x = self.materialize(node, x, "group_norm_input")
        k = self.kernel("group_norm")
        cpg = k.pr.atom(sympy.simplify(C / G))
        hw = k.pr.atom(HxW)
        xs, os_ = k.buffer(x), k.buffer(out, True)
        n = "%s * %s" % (cpg, hw)
        base = "i * %s" % _paren(n)
        k.lines += ["const int64_t g = i %% %d;" % G,
                    "double sum = 0, sq = 0;",
                    "for (int64_t r = 0; r < %s; ++r) sum += %s[%s + r];" % (n, xs, base),
                    "const double mu = sum / (double)(%s);" % n,
                    "for (int64_t r = 0; r < %s; ++r) { const double d = %s[%s + r] - mu; sq += d * d; }" % (n, xs, base),
                    "const float mean = (float)mu;",
                    "const float rstd = (float)(1.0 / sqrt(sq / (double)(%s) + %s));" % (n, flit(eps, torch.float64)),
                    "for (int64_t r = 0; r < %s; ++r) {" % n,
                    "  const int64_t c = g * %s + r / %s;" % (cpg, hw),
                    "  %s[%s + r] = (%s[%s + r] - mean) * rstd%s%s;" % (
                        os_, base, xs, base, " * %s[c]" % k.buffer(w) if w is not None else "",
                        " + %s[c]" % k.buffer(b) if b is not None else ""),
                    "}",
                    "%s[i] = mean;" % k.buffer(mean, True),
                    "%s[i] = rstd;" % k.buffer(rstd, True)]
        self.accumulates = True
        self.launch(k, N * G, "aten.native_group_norm: %d groups, one thread per (sample, group)" % G)
        return [out, mean, rstd]

    def _batch_norm(self, node, op, x, w, b, mean, var, training, eps):
        """Batch norm over dimension 1: with training, the batch's statistics (a kernel of one
        thread per channel), else the running ones; then one thread per element."""
        dtype, sizes = self.out_meta(node, 0)
        C = x.sizes[1]
        if training:
            stats = self._scratch(torch.float32, [C, 2])
            k = self.kernel("batch_norm_stats")
            other = [0] + list(range(2, x.ndim))
            coords = [None] * x.ndim
            coords[1] = "i"
            for d, c in zip(other, unflatten("r", [x.sizes[d] for d in other], k.pr)):
                coords[d] = c
            n = k.pr(sympy.Mul(*[x.sizes[d] for d in other]))
            at = k.at(x, coords)
            st = k.buffer(stats, True)
            k.lines += ["double sum = 0, sq = 0;",
                        "for (int64_t r = 0; r < %s; ++r) sum += %s;" % (n, at),
                        "const double mu = sum / (double)(%s);" % n,
                        "for (int64_t r = 0; r < %s; ++r) { const double d = %s - mu; sq += d * d; }" % (n, at),
                        "%s[2 * i] = (float)mu;" % st,
                        "%s[2 * i + 1] = (float)(1.0 / sqrt(sq / (double)(%s) + %s));" % (st, n, flit(eps, torch.float64))]
            self.accumulates = True
            self.launch(k, C, "aten batch norm (training): each channel's mean and 1/std over the batch")
        out = self.new(node, dtype, sizes, index=0)
        k = self.kernel("batch_norm")
        coords = unflatten("i", sizes, k.pr)
        c = coords[1]
        k.lines.append("const int64_t c = %s;" % c)
        if training:
            sb = k.buffer(stats)
            norm = "(%s - %s[2 * c]) * %s[2 * c + 1]" % (k.read_flat(x, sizes), sb, sb)
        else:
            norm = "(%s - %s[c]) * rsqrtf(%s[c] + %s)" % (k.read_flat(x, sizes), k.buffer(mean), k.buffer(var),
                                                          flit(eps, torch.float32))
        if w is not None:
            norm = "%s * %s[c]" % (norm, k.buffer(w))
        if b is not None:
            norm = "%s + %s[c]" % (norm, k.buffer(b))
        k.lines.append("%s = %s;" % (k.write(out), norm))
        self.launch(k, out.numel(), "aten batch norm (%s statistics)" % ("the batch's" if training else "running"))
        rest = [self._scratch(torch.float32, [sympy.Integer(0)]) for _ in range(len(self.meta(node)) - 1)]
        return [out] + rest

    def op__native_batch_norm_legit_no_training(self, node, op, overload):
        a = node.args
        return self._batch_norm(node, op, self.tensor(node, a[0]), self.vals.get(a[1]), self.vals.get(a[2]),
                                self.vals.get(a[3]), self.vals.get(a[4]), False, a[6])

    def op__native_batch_norm_legit_functional(self, node, op, overload):
        a = node.args
        return self._batch_norm(node, op, self.tensor(node, a[0]), self.vals.get(a[1]), self.vals.get(a[2]),
                                self.vals.get(a[3]), self.vals.get(a[4]), a[5], a[7])

    def op__native_batch_norm_legit(self, node, op, overload):
        a = node.args
        if len(a) == 6 or overload == "no_stats":
            return self._batch_norm(node, op, self.tensor(node, a[0]), self.vals.get(a[1]), self.vals.get(a[2]),
                                    None, None, True, a[-1])
        return self._batch_norm(node, op, self.tensor(node, a[0]), self.vals.get(a[1]), self.vals.get(a[2]),
                                self.vals.get(a[3]), self.vals.get(a[4]), a[5], a[7])

    # -- matrix products through cuBLAS, as eager ---------------------------------------
    def _operand(self, node, v):
        """(C pointer expression, op, ld) of a 2-D (or batched 3-D) operand as cuBLAS takes it:
        row-major rows (CUBLAS_OP_N on the swapped product) or a transposed view (CUBLAS_OP_T)."""
        r, c = v.sizes[-2], v.sizes[-1]
        sr, sc = v.strides[-2], v.strides[-1]
        if is_const(sc, 1) or is_const(c, 1):
            ld = sr if not is_const(r, 1) else c
            return v, "N", ld
        if is_const(sr, 1) or is_const(r, 1):
            ld = sc if not is_const(c, 1) else r
            return v, "T", ld
        return None

    def _ptr(self, v):
        return v.buf if is_const(v.offset, 0) else "%s + %s" % (v.buf, self.pr(v.offset))

    def gemm(self, node, a, b, out, alpha=1.0, beta=0.0, batch=None):
        """out[M,N] (row-major) = alpha * a[M,K] @ b[K,N] + beta * out."""
        self.uses_cublas = True
        self.accumulates = True
        if out.dtype not in FLOATS or a.dtype != out.dtype or b.dtype != out.dtype:
            self.fail(node, "a matrix product of %s tensors (cuBLAS takes float and double here)" % out.dtype)
        ops = []
        for v in (a, b):
            got = self._operand(node, v)
            if got is None:
                v = self.materialize(node, v, "matmul_operand")
                got = self._operand(node, v)
            ops.append(got)
        (va, opa, lda), (vb, opb, ldb) = ops
        M, K, N = a.sizes[-2], a.sizes[-1], b.sizes[-1]
        p = self.pr
        t = "S" if out.dtype == torch.float32 else "D"
        lit = (lambda x: flit(x, out.dtype))
        ct = CTYPE[out.dtype]
        self.body.append("{")
        self.body.append("  const %s alpha = %s, beta = %s;" % (ct, lit(alpha), lit(beta)))
        # row-major out = a b is column-major out^T = b^T a^T: the operands swap
        if batch is None:
            self.body.append("  cublas%sgemm(kf_cublas(stream), CUBLAS_OP_%s, CUBLAS_OP_%s, %s, %s, %s, &alpha, %s, %s, "
                             "%s, %s, &beta, %s, %s);" % (t, opb, opa, p(N), p(M), p(K), self._ptr(vb), p(ldb),
                                                          self._ptr(va), p(lda), self._ptr(out), p(N)))
        else:
            sa = va.strides[0] if va.ndim == 3 else sympy.Integer(0)
            sb = vb.strides[0] if vb.ndim == 3 else sympy.Integer(0)
            if va.ndim == 3 and is_const(va.sizes[0], 1):
                sa = sympy.Integer(0)
            if vb.ndim == 3 and is_const(vb.sizes[0], 1):
                sb = sympy.Integer(0)
            self.body.append("  cublas%sgemmStridedBatched(kf_cublas(stream), CUBLAS_OP_%s, CUBLAS_OP_%s, %s, %s, %s, "
                             "&alpha, %s, %s, %s, %s, %s, %s, &beta, %s, %s, %s, %s);"
                             % (t, opb, opa, p(N), p(M), p(K), self._ptr(vb), p(ldb), p(sb), self._ptr(va), p(lda),
                                p(sa), self._ptr(out), p(N), p(M * N), p(batch)))
        self.body.append("}")
        self.ops.append("cuBLAS %sgemm%s" % (t, "StridedBatched" if batch is not None else ""))

    def op_mm(self, node, op, overload):
        a, b = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        self.gemm(node, a, b, out)
        return out

    def op_addmm(self, node, op, overload):
        return self._add_product(node, op, batched=False)

    def op_bmm(self, node, op, overload):
        a, b = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        self.gemm(node, a, b, Val(out.buf, dtype, sizes), batch=sizes[0])
        return out

    def op_baddbmm(self, node, op, overload):
        return self._add_product(node, op, batched=True)

    def _add_product(self, node, op, batched):
        """addmm, baddbmm: the added tensor broadcast into the output, then the product
        added to it (beta) by cuBLAS."""
        bias, a, b = (self.tensor(node, x) for x in node.args[:3])
        beta = node.kwargs.get("beta", 1)
        alpha = node.kwargs.get("alpha", 1)
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel(op + "_bias")
        k.lines.append("%s = %s;" % (k.write(out), k.read_flat(bias, sizes)))
        self.launch(k, out.numel(), "aten.%s: the %s, broadcast into the output before the product" % (
            op, "added tensor" if batched else "bias"))
        self.gemm(node, a, b, out, alpha, beta, batch=sizes[0] if batched else None)
        return out

    def op_mv(self, node, op, overload):
        a, x = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        xm = x.with_([x.sizes[0], sympy.Integer(1)], [x.strides[0], sympy.Integer(1)])
        self.gemm(node, a, xm, Val(out.buf, dtype, [sizes[0], sympy.Integer(1)]))
        return out

    def op_dot(self, node, op, overload):
        a, b = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, [sympy.Integer(1)])
        am = a.with_([sympy.Integer(1), a.sizes[0]], [a.sizes[0], a.strides[0]])
        bm = b.with_([b.sizes[0], sympy.Integer(1)], [b.strides[0], sympy.Integer(1)])
        self.gemm(node, am, bm, Val(out.buf, dtype, [sympy.Integer(1), sympy.Integer(1)]))
        return Val(out.buf, dtype, sizes)

    # -- convolution and pooling: one thread per output element -------------------------
    def op_convolution(self, node, op, overload):
        x, w = self.tensor(node, node.args[0]), self.tensor(node, node.args[1])
        b = self.vals.get(node.args[2]) if node.args[2] is not None else None
        stride, padding, dilation, transposed, _, groups = node.args[3:9]
        dtype, sizes = self.out_meta(node)
        sp = x.ndim - 2
        if sp < 1 or sp > 3:
            self.fail(node, "a convolution over %d spatial dimensions" % sp)
        stride, padding, dilation = (list(v) * sp if len(v) == 1 else list(v) for v in (stride, padding, dilation))
        out = self.new(node, dtype, sizes)
        k = self.kernel("conv_transpose%dd" % sp if transposed else "conv%dd" % sp)
        pr = k.pr
        coords = unflatten("i", sizes, pr)
        names = ["oh", "ow"] if sp == 2 else ["od", "oh", "ow"] if sp == 3 else ["ol"]
        knames = [n.replace("o", "k", 1) for n in names]
        inames = [n.replace("o", "i", 1) for n in names]
        k.lines.append("const int64_t b = %s, oc = %s;" % (coords[0], coords[1]))
        for nm, c in zip(names, coords[2:]):
            k.lines.append("const int64_t %s = %s;" % (nm, c))
        cin_g = x.sizes[1] / groups if not transposed else x.sizes[1] / groups
        cout_g = sizes[1] / groups
        k.lines.append("const int64_t g = oc / %s;" % pr.atom(sympy.simplify(cout_g)))
        k.lines.append("%s acc = %s;" % ("double" if dtype == torch.float64 else "float",
                                        ("%s[oc]" % k.buffer(b)) if b is not None else flit(0, dtype)))
        k.lines.append("for (int64_t c = 0; c < %s; ++c) {" % pr.atom(sympy.simplify(cin_g)))
        k.lines.append("  const int64_t ic = g * %s + c;" % pr.atom(sympy.simplify(cin_g)))
        depth = 1
        for d in range(sp):
            ind = "  " * depth
            ks = pr.atom(w.sizes[2 + d])
            k.lines.append("%sfor (int64_t %s = 0; %s < %s; ++%s) {" % (ind, knames[d], knames[d], ks, knames[d]))
            depth += 1
            ind = "  " * depth
            if not transposed:
                k.lines.append("%sconst int64_t %s = %s * %d - %d + %s * %d;" % (ind, inames[d], names[d], stride[d],
                                                                                padding[d], knames[d], dilation[d]))
                k.lines.append("%sif (%s < 0 || %s >= %s) continue;" % (ind, inames[d], inames[d],
                                                                       pr.atom(x.sizes[2 + d])))
            else:
                k.lines.append("%sconst int64_t %s_s = %s + %d - %s * %d;" % (ind, inames[d], names[d], padding[d],
                                                                             knames[d], dilation[d]))
                k.lines.append("%sif (%s_s < 0 || %s_s %% %d != 0) continue;" % (ind, inames[d], inames[d], stride[d]))
                k.lines.append("%sconst int64_t %s = %s_s / %d;" % (ind, inames[d], inames[d], stride[d]))
                k.lines.append("%sif (%s >= %s) continue;" % (ind, inames[d], pr.atom(x.sizes[2 + d])))
        ind = "  " * depth
        xv = k.at(x, ["b", "ic"] + inames)
        if transposed:
            wv = k.at(w, ["ic", "oc - g * %s" % pr.atom(sympy.simplify(cout_g))] + knames)
        else:
            wv = k.at(w, ["oc", "c"] + knames)
        k.lines.append("%sacc += %s * %s;" % (ind, xv, wv))
        for d in range(sp + 1):
            depth -= 1
            k.lines.append("%s}" % ("  " * depth))
        k.lines.append("%s = acc;" % k.write(out))
        self.accumulates = True
        self.launch(k, out.numel(), "aten.convolution%s: %dd, stride %s, padding %s, dilation %s, groups %d" % (
            " (transposed)" if transposed else "", sp, list(stride), list(padding), list(dilation), groups))
        return out

    def _pool(self, node, op, x, kernel, stride, padding, dilation, kind, ceil_mode=False, count_include_pad=True,
              divisor=None, index=None):
        sp = len(kernel)
        dtype, sizes = self.out_meta(node, 0 if index is not None else None)
        out = self.new(node, dtype, sizes, index=0 if index is not None else None)
        k = self.kernel("%s_pool%dd" % (kind, sp))
        pr = k.pr
        coords = unflatten("i", sizes, pr)
        lead = x.ndim - sp
        base = coords[:lead]
        osp = coords[lead:]
        inames = ["i%d" % d for d in range(sp)]
        knames = ["k%d" % d for d in range(sp)]
        for d in range(sp):
            k.lines.append("const int64_t s%d = %s * %d - %d;" % (d, _paren(osp[d]), stride[d], padding[d]))
        if kind == "max":
            k.lines.append("%s best = -INFINITY;" % CTYPE[dtype])
        else:
            k.lines.append("double acc = 0;")
            k.lines.append("int64_t count = 0;")
        depth = 0
        for d in range(sp):
            ind = "  " * depth
            k.lines.append("%sfor (int64_t %s = 0; %s < %d; ++%s) {" % (ind, knames[d], knames[d], kernel[d], knames[d]))
            depth += 1
            ind = "  " * depth
            k.lines.append("%sconst int64_t %s = s%d + %s * %d;" % (ind, inames[d], d, knames[d], dilation[d]))
            k.lines.append("%sif (%s < 0 || %s >= %s) continue;" % (ind, inames[d], inames[d], pr.atom(x.sizes[lead + d])))
        ind = "  " * depth
        v = k.at(x, base + inames)
        if kind == "max":
            k.lines.append("%s{ const %s v = %s; if (v > best || isnan(v)) best = v; }" % (ind, CTYPE[dtype], v))
        else:
            k.lines.append("%sacc += %s;" % (ind, v))
            k.lines.append("%s++count;" % ind)
        for d in range(sp):
            depth -= 1
            k.lines.append("%s}" % ("  " * depth))
        if kind == "max":
            k.lines.append("%s = best;" % k.write(out))
        else:
            if divisor:
                div = str(divisor)
            elif count_include_pad:
                parts = []
                for d in range(sp):
                    hi = "%s + %d" % (pr.atom(x.sizes[lead + d]), padding[d])
                    parts.append("((s%d + %d < %s ? s%d + %d : %s) - s%d)" % (d, kernel[d], hi, d, kernel[d], hi, d))
                div = " * ".join(parts)
            else:
                div = "count"
            k.lines.append("%s = (%s)(acc / (double)(%s));" % (k.write(out), CTYPE[dtype], div))
        self.launch(k, out.numel(), "aten %s pooling %dd: kernel %s, stride %s, padding %s" % (
            kind, sp, list(kernel), list(stride), list(padding)))
        return out

    def _pool_args(self, node, sp):
        a = list(node.args) + [None] * 8
        kernel = list(a[1]) * (sp if len(a[1]) == 1 else 1)
        stride = list(a[2]) if a[2] else kernel
        stride = stride * (sp if len(stride) == 1 else 1)
        padding = list(a[3]) if a[3] is not None else [0]
        padding = padding * (sp if len(padding) == 1 else 1)
        return a, kernel, stride, padding

    def _max_pool(self, node, op, sp):
        x = self.tensor(node, node.args[0])
        a, kernel, stride, padding = self._pool_args(node, sp)
        dilation = list(a[4]) if a[4] else [1]
        dilation = dilation * (sp if len(dilation) == 1 else 1)
        out = self._pool(node, op, x, kernel, stride, padding, dilation, "max", index=0)
        for user in node.users:
            if user.target is operator.getitem and user.args[1] == 1 and user.users:
                self.fail(node, "max pooling's indices are used; the exporter writes the values only")
        return [out, None]

    def op_max_pool2d_with_indices(self, node, op, overload):
        return self._max_pool(node, op, 2)

    def op_max_pool3d_with_indices(self, node, op, overload):
        return self._max_pool(node, op, 3)

    def _avg_pool(self, node, op, sp):
        x = self.tensor(node, node.args[0])
        a, kernel, stride, padding = self._pool_args(node, sp)
        include = a[5] if a[5] is not None else True
        return self._pool(node, op, x, kernel, stride, padding, [1] * sp, "avg", a[4] or False, include, a[6])

    def op_avg_pool1d(self, node, op, overload):
        return self._avg_pool(node, op, 1)

    def op_avg_pool2d(self, node, op, overload):
        return self._avg_pool(node, op, 2)

    def op_avg_pool3d(self, node, op, overload):
        return self._avg_pool(node, op, 3)

    def op__adaptive_avg_pool2d(self, node, op, overload):
        return self._adaptive(node, op, 2)

    def op__adaptive_avg_pool3d(self, node, op, overload):
        return self._adaptive(node, op, 3)

    def _adaptive(self, node, op, sp):
        x = self.tensor(node, node.args[0])
        dtype, sizes = self.out_meta(node)
        out = self.new(node, dtype, sizes)
        k = self.kernel("adaptive_avg_pool%dd" % sp)
        pr = k.pr
        coords = unflatten("i", sizes, pr)
        lead = x.ndim - sp
        for d in range(sp):
            I, O = pr.atom(x.sizes[lead + d]), pr.atom(sizes[lead + d])
            k.lines.append("const int64_t a%d = (%s * %s) / %s, b%d = ((%s + 1) * %s + %s - 1) / %s;" % (
                d, _paren(coords[lead + d]), I, O, d, _paren(coords[lead + d]), I, O, O))
        k.lines.append("double acc = 0;")
        depth = 0
        for d in range(sp):
            k.lines.append("%sfor (int64_t i%d = a%d; i%d < b%d; ++i%d) {" % ("  " * depth, d, d, d, d, d))
            depth += 1
        k.lines.append("%sacc += %s;" % ("  " * depth, k.at(x, coords[:lead] + ["i%d" % d for d in range(sp)])))
        for d in range(sp):
            depth -= 1
            k.lines.append("%s}" % ("  " * depth))
        k.lines.append("%s = (%s)(acc / (double)(%s));" % (k.write(out), CTYPE[dtype],
                                                          " * ".join("(b%d - a%d)" % (d, d) for d in range(sp))))
        self.launch(k, out.numel(), "aten adaptive average pooling %dd" % sp)
        return out

    def op_linalg_vector_norm(self, node, op, overload):
        x = self.tensor(node, node.args[0])
        ord_ = node.args[1] if len(node.args) > 1 else node.kwargs.get("ord", 2)
        dims = self._reduce_dims(x, node.args[2] if len(node.args) > 2 else node.kwargs.get("dim"))
        dtype, _ = self.out_meta(node)
        t = CTYPE[dtype]
        if ord_ == 2:
            return self.reduction(node, "vector_norm", x, dims, "0", "{acc} += (double){v} * {v};",
                                  "(%s)sqrt({acc})" % t, torch.float64, combine=SUM)
        if ord_ == 1:
            return self.reduction(node, "vector_norm", x, dims, "0", "{acc} += fabs((double){v});", "(%s){acc}" % t,
                                  torch.float64, combine=SUM)
        if ord_ == float("inf"):
            return self.reduction(node, "vector_norm", x, dims, "0", "{acc} = fmax({acc}, fabs((double){v}));",
                                  "(%s){acc}" % t, torch.float64, combine="{a} = fmax({a}, {b});")
        return self.reduction(node, "vector_norm", x, dims, "0", "{acc} += pow(fabs((double){v}), %r);" % float(ord_),
                              "(%s)pow({acc}, %r)" % (t, 1.0 / float(ord_)), torch.float64, combine=SUM)

    # -- recurrent layers (rnn.py): per layer and direction, the inputs' GEMM over all steps,
    # then a host loop over the steps: a GEMM of the hidden state and a cell kernel -------------
    def op_rnn(self, node):
        mode, xa, h0a, c0a, wa, has_bias, layers, batch_first, bidir = node.args
        x, h0 = self.tensor(node, xa), self.tensor(node, h0a)
        c0 = self.tensor(node, c0a) if mode == "lstm" else None
        ws = [self.tensor(node, w) for w in wa]
        if x.dtype != torch.float32:
            self.fail(node, "a recurrent layer over %s tensors (float only)" % x.dtype)
        D = 2 if bidir else 1
        G = 4 if mode == "lstm" else 3
        T, B = (x.sizes[1], x.sizes[0]) if batch_first else (x.sizes[0], x.sizes[1])
        H = h0.sizes[2]
        metas = self.meta(node)
        out = self.new(node, torch.float32, [as_expr(s) for s in metas[0].shape], index=0)
        hn = self.new(node, torch.float32, [as_expr(s) for s in metas[1].shape], index=1)
        cn = self.new(node, torch.float32, [as_expr(s) for s in metas[2].shape], index=2) if mode == "lstm" else None
        per = 4 if has_bias else 2
        pr = self.pr
        self.uses_cublas = True
        self.accumulates = True
        layer_in = x if x.is_contiguous() and is_const(x.offset, 0) else self.materialize(node, x, "rnn_input")
        rows = T * B
        gx = self._scratch(torch.float32, [rows, G * H])
        gates = self._scratch(torch.float32, [B, G * H])
        h = self._scratch(torch.float32, [B, H])
        c = self._scratch(torch.float32, [B, H]) if mode == "lstm" else None
        # the row of (batch b, step s) in an input or output laid out as the layer's
        row = "b * %s + s" % pr.atom(T) if batch_first else "s * %s + b" % pr.atom(B)
        for layer in range(layers):
            last = layer == layers - 1
            dst = out if last else self._scratch(torch.float32, [x.sizes[0], x.sizes[1], D * H])
            feat = layer_in.sizes[2]
            for d in range(D):
                k0 = (layer * D + d) * per
                w_ih, w_hh = ws[k0], ws[k0 + 1]
                b_ih, b_hh = (ws[k0 + 2], ws[k0 + 3]) if has_bias else (None, None)
                tag = "layer %d%s" % (layer, " reverse" if d else "")
                # gx = x W_ih^T (+ b_ih, and + b_hh for an LSTM): every step at once
                k = self.kernel("%s_input_bias" % mode)
                terms = [k.at(b, ["i %% %s" % k.pr.atom(G * H)]) for b in (b_ih, b_hh if mode == "lstm" else None)
                         if b is not None]
                k.lines.append("%s = %s;" % (k.write(gx), " + ".join(terms) or "0.0f"))
                self.launch(k, rows * G * H, "%s %s: the input biases of every step" % (mode, tag))
                self.gemm(node, Val(layer_in.buf, torch.float32, [rows, feat]), w_ih.with_(
                    [w_ih.sizes[1], w_ih.sizes[0]], [w_ih.strides[1], w_ih.strides[0]]), gx, beta=1.0)
                # the state of this layer and direction, from h0 (and c0)
                for src, st in ((h0, h), (c0, c)):
                    if src is None:
                        continue
                    k = self.kernel("%s_state_in" % mode)
                    sel = Val(src.buf, src.dtype, [B, H], [src.strides[1], src.strides[2]],
                              src.offset + (layer * D + d) * src.strides[0])
                    k.lines.append("%s = %s;" % (k.write(st), k.read_flat(sel, [B, H])))
                    self.launch(k, B * H, "%s %s: the initial state" % (mode, tag))
                start = len(self.body)
                self.body.append("for (int64_t t = 0; t < %s; ++t) {" % pr(T))
                self.body.append("  const int64_t s = %s;" % ("%s - 1 - t" % pr.atom(T) if d else "t"))
                # gates = h W_hh^T (+ b_hh for a GRU, whose new gate needs it apart)
                k = self.kernel("%s_hidden_bias" % mode)
                k.lines.append("%s = %s;" % (k.write(gates), k.at(b_hh, ["i %% %s" % k.pr.atom(G * H)])
                                             if (mode == "gru" and b_hh is not None) else "0.0f"))
                self.launch(k, B * G * H, "%s %s: the hidden biases of a step" % (mode, tag))
                self.gemm(node, h, w_hh.with_([w_hh.sizes[1], w_hh.sizes[0]], [w_hh.strides[1], w_hh.strides[0]]),
                          gates, beta=1.0)
                k = self.kernel("%s_cell" % mode)
                k.params.append(("int64_t s", "s"))
                gxs, gs, hs = k.buffer(gx), k.buffer(gates), k.buffer(h, True)
                ob = k.buffer(dst, True)
                Hc, GHc, DHc = k.pr.atom(H), k.pr.atom(G * H), k.pr.atom(D * H)
                k.lines.append("const int64_t b = i / %s, j = i %% %s;" % (Hc, Hc))
                k.lines.append("const int64_t r = %s;" % row.replace(pr.atom(T), k.pr.atom(T)).replace(
                    pr.atom(B), k.pr.atom(B)))
                k.lines.append("const float* x = %s + r * %s;" % (gxs, GHc))
                k.lines.append("const float* g = %s + b * %s;" % (gs, GHc))
                if mode == "lstm":
                    cs = k.buffer(c, True)
                    k.lines += [
                        "const float ig = 1.0f / (1.0f + expf(-(x[j] + g[j])));",
                        "const float fg = 1.0f / (1.0f + expf(-(x[%s + j] + g[%s + j])));" % (Hc, Hc),
                        "const float cg = tanhf(x[2 * %s + j] + g[2 * %s + j]);" % (Hc, Hc),
                        "const float og = 1.0f / (1.0f + expf(-(x[3 * %s + j] + g[3 * %s + j])));" % (Hc, Hc),
                        "const float cn = fg * %s[i] + ig * cg;" % cs,
                        "const float hn = og * tanhf(cn);",
                        "%s[i] = cn;" % cs]
                else:
                    k.lines += [
                        "const float rg = 1.0f / (1.0f + expf(-(x[j] + g[j])));",
                        "const float zg = 1.0f / (1.0f + expf(-(x[%s + j] + g[%s + j])));" % (Hc, Hc),
                        "const float ng = tanhf(x[2 * %s + j] + rg * g[2 * %s + j]);" % (Hc, Hc),
                        "const float hn = (1.0f - zg) * ng + zg * %s[i];" % hs]
                k.lines.append("%s[i] = hn;" % hs)
                k.lines.append("%s[r * %s + %sj] = hn;" % (ob, DHc, "%s + " % k.pr.atom(d * H) if d else ""))
                self.launch(k, B * H, "%s %s: the cell of one step, one thread per (batch, hidden unit)" % (mode, tag))
                self.body.append("}")
                for i in range(start + 2, len(self.body) - 1):
                    self.body[i] = "  " + self.body[i]
                for st, final in ((h, hn), (c, cn)):
                    if st is None:
                        continue
                    k = self.kernel("%s_state_out" % mode)
                    sel = Val(final.buf, final.dtype, [B, H], None, (layer * D + d) * B * H)
                    k.lines.append("%s = %s;" % (k.at(sel, ["i / %s" % k.pr.atom(H), "i %% %s" % k.pr.atom(H)],
                                                          write=True), k.read_flat(st, [B, H])))
                    self.launch(k, B * H, "%s %s: the final state" % (mode, tag))
            layer_in = dst
        if cn is None:
            cn = self._scratch(torch.float32, [sympy.Integer(0)])
        return [out, hn, cn]
