"""Writing the captured, lowered forward pass as one `.cu` file to kfuse's input contract:
the kernels, then the entry with its annotations (docs/export.md)."""
import keyword
import math
import os
import re

import sympy
import torch

from . import __version__
from .cexpr import Printer, as_expr
from .errors import ExportError
from .lower import ANNOT, Lowering, Val, ctype

C_WORDS = {"auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
           "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return", "short",
           "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
           "volatile", "while", "class", "new", "delete", "this", "template", "stream", "handle", "i", "n",
           "half", "dim3", "min", "max"}


def c_name(text, taken):
    """text as a C identifier not in taken (which it joins)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text).strip("_") or "t"
    if name[0].isdigit():
        name = "p_" + name
    if name in C_WORDS or keyword.iskeyword(name) or re.match(r"(tmp|k)[0-9]+", name):
        name += "_"
    base, k = name, 2
    while name in taken:
        name = "%s_%d" % (base, k)
        k += 1
    taken.add(name)
    return name


def entry_name(path):
    stem = os.path.splitext(os.path.basename(path))[0].lower()
    stem = re.sub(r"[^a-z0-9]+", "_", stem).strip("_")
    return "kb_" + stem if not stem or stem[0].isdigit() else stem


def _round_out(lo, hi):
    """A short interval that holds [lo, hi]."""
    def down(v):
        if v == 0:
            return 0.0
        p = 10 ** (math.floor(math.log10(abs(v))) - 2)
        return math.floor(v / p) * p

    def up(v):
        if v == 0:
            return 0.0
        p = 10 ** (math.floor(math.log10(abs(v))) - 2)
        return math.ceil(v / p) * p
    return down(lo), up(hi)


def param_init(name, tensor):
    """The init of a parameter or buffer: the interval its values lie in (the module's own
    initialization), positive for a running variance, normal where all values are equal."""
    if tensor.dtype not in (torch.float32, torch.float64) or tensor.numel() == 0:
        return None
    lo, hi = float(tensor.min()), float(tensor.max())
    if "running_var" in name or (lo > 0 and lo == hi and "var" in name):
        return "positive"
    if lo == hi:
        return None  # normal: any finite values (a LayerNorm's ones, a bias's zeros)
    lo, hi = _round_out(lo, hi)
    return "uniform(%.6g,%.6g)" % (lo, hi)


def _check_value(lo, hi, example):
    """A small odd size within [lo, hi], other than the example."""
    for v in (3, 5, 7, 9, 11, 13):
        if (lo is None or v >= lo) and (hi is None or v <= hi) and v != example:
            return v
    return lo if lo is not None else example


def export_source(problem, cap, torch_version=None):
    """The .cu text of the captured forward pass, and a summary (dict)."""
    graph = cap.graph
    taken = set(cap.symbols.values())
    names, order, constants, state_targets = {}, [], {}, {}
    user = problem.inputs
    user_i = 0
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for node, (kind, target, value) in zip(placeholders, cap.inputs):
        val = node.meta.get("val")
        if kind == "input":
            example = user[user_i] if user_i < len(user) else None
            draw = problem.draws[user_i] if user_i < len(problem.draws) else None
            user_i += 1
            if not isinstance(val, torch.Tensor):
                continue
            names[node.name] = c_name(node.name, taken)
            order.append((node, "input", names[node.name], draw, example))
        elif kind == "constant" and isinstance(value, torch.Tensor) and value.numel() == 1:
            constants[node.name] = value.item()  # a number in the kernels that read it
        elif kind == "constant":
            raise ExportError("the forward pass reads a tensor constant of more than one element (%s), which "
                              "the exporter cannot pass as an input; make it a buffer of the module" % target, problem.path)
        else:
            names[node.name] = c_name(target, taken)
            order.append((node, kind, names[node.name], param_init(target, value), value))
            state_targets[names[node.name]] = target

    order.sort(key=lambda o: o[1] != "input")  # the forward's inputs first, then the module's state
    out_node = next(n for n in graph.nodes if n.op == "output")
    results = out_node.args[0]
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    out_names, outputs = {}, []
    for i, r in enumerate(results):
        if not isinstance(r, torch.fx.Node) or not isinstance(r.meta.get("val"), torch.Tensor):
            raise ExportError("the forward pass returns something other than tensors (output %d)" % i, problem.path)
        name = c_name("out" if len(results) == 1 else "out%d" % i, taken)
        outputs.append((r, name))
        if r not in out_names and r.op != "placeholder":
            out_names[r] = name

    lw = Lowering(cap, problem.path, names, out_names, constants)
    lw.run(graph)
    for r, name in outputs:
        v = lw.vals.get(r)
        if not isinstance(v, Val):
            raise ExportError("output %s is not a tensor the exporter placed" % name, problem.path)
        if v.buf != name:
            out = Val(name, v.dtype, v.sizes)
            k = lw.kernel("copy_out")
            k.lines.append("%s = %s;" % (k.write(out), k.read_flat(v, v.sizes)))
            lw.launch(k, v.numel(), "the result %s, written out" % name)

    pr = Printer(cap.symbols)
    entry = entry_name(problem.path)

    def extents(val):
        shape = [as_expr(s) for s in val.shape] or [sympy.Integer(1)]
        return "".join("[%s]" % pr(s) for s in shape)

    def annot_type(val):
        if val.dtype not in ANNOT:
            raise ExportError("a tensor of type %s at the entry (the contract takes %s)"
                              % (str(val.dtype).replace("torch.", ""), ", ".join(sorted(set(ANNOT.values())))),
                              problem.path)
        return ANNOT[val.dtype]

    lines, params = [], []
    width = max([len(n) for _, _, n, _, _ in order] + [len(n) for _, n in outputs])
    for node, kind, name, init, _ in order:
        val = node.meta["val"]
        lines.append("// kfuse: in  %-*s %s%s" % (width, name, annot_type(val), extents(val)))
        params.append("const %s* %s" % (ctype(val.dtype), name))
    for r, name in outputs:
        val = r.meta["val"]
        lines.append("// kfuse: out %-*s %s%s" % (width, name, annot_type(val), extents(val)))
        params.append("%s* %s" % (ctype(val.dtype), name))
    for node, kind, name, init, _ in order:
        val = node.meta["val"]
        if kind == "input" and init is None and val.dtype in (torch.float32, torch.float64):
            init = "normal"
        if init:
            lines.append("// kfuse: init %-*s %s" % (width, name, init))
    syms = sorted(set(cap.symbols.values()))
    examples = {}
    for node, kind, name, init, example in order:
        val = node.meta["val"]
        if kind != "input" or not isinstance(example, torch.Tensor):
            continue
        for s, e in zip(val.shape, example.shape):
            if isinstance(s, torch.SymInt) and s.node.expr.is_Symbol:
                examples[cap.symbols[str(s.node.expr)]] = int(e)
    for s in syms:
        lo, hi = cap.ranges.get(s, (2, None))
        lo = max(lo or 2, 2)
        lines.append("// kfuse: assume %s >= %d" % (s, lo))
        if hi is not None:
            lines.append("// kfuse: assume %s <= %d" % (s, hi))
    if lw.accumulates:
        lines.append("// kfuse: tol rtol=1e-3 atol=1e-4")
    lines.append("// kfuse: tune %s" % " ".join("%s=%d" % (s, examples[s]) for s in syms))
    if syms:
        lines.append("// kfuse: check %s" % " ".join(
            "%s=%d" % (s, _check_value(max((cap.ranges.get(s, (2, None))[0] or 2), 2),
                                       cap.ranges.get(s, (2, None))[1], examples[s])) for s in syms))
    params += ["int64_t %s" % s for s in syms] + ["cudaStream_t stream"]

    head = ["// Exported by kfuse-export %s from %s" % (__version__, os.path.basename(problem.path)),
            "// torch %s; captured with %s, decomposed to ATen core operators." % (
                torch_version or torch.__version__, cap.method)]
    for why in cap.fallbacks:
        head.append("//   (%s)" % why[:160])
    head.append("// The module in eval mode: dropout off, batch norm with its running statistics.")
    head.append("// One naive kernel per operator, every intermediate in global memory%s." % (
        ", matrix products through cuBLAS as eager" if lw.uses_cublas else ""))
    if syms:
        head.append("// Symbolic sizes: %s (the example's: %s)." % (
            ", ".join(syms), ", ".join("%s=%d" % (s, examples[s]) for s in syms)))
    includes = ["#include <cuda_runtime.h>", "#include <climits>", "#include <cstdint>"]
    if lw.uses_cublas:
        includes.append("#include <cublas_v2.h>")
    text = "\n".join(head) + "\n" + "\n".join(includes) + "\n\n"
    if lw.uses_cublas:
        text += ("static cublasHandle_t kf_handle = nullptr;\n\n"
                 "static cublasHandle_t kf_cublas_handle() {\n"
                 "  if (kf_handle == nullptr) cublasCreate(&kf_handle);\n"
                 "  return kf_handle;\n"
                 "}\n\n")
    text += "\n".join(lw.kernels) + "\n"
    text += "\n".join(lines) + "\n"
    text += 'extern "C" void %s(%s) {\n' % (entry, ", ".join(params))
    body = list(lw.body)
    if lw.uses_cublas:
        body = ["cublasHandle_t handle = kf_cublas_handle();", "cublasSetStream(handle, stream);"] + body
    body += ["cudaFreeAsync(%s, stream);" % t for t in lw.scratch]
    text += "".join("  %s\n" % l for l in body)
    text += "}\n"
    text = text.replace("kf_cublas(stream)", "handle")
    info = {"entry": entry, "method": cap.method, "fallbacks": cap.fallbacks, "symbols": syms,
            "examples": examples, "kernels": len(lw.kernels), "cublas": lw.uses_cublas, "ops": lw.ops,
            "params": [(kind, name) for _, kind, name, _, _ in order],
            "state": state_targets,
            "outputs": [name for _, name in outputs],
            "tol": (1e-3, 1e-4) if lw.accumulates else None}
    return text, info


TWIN = '''"""The PyTorch twin of %(cu)s, exported by kfuse-export %(version)s from %(problem)s: the
module itself (eval mode), called the way benchmarks/run calls a corpus twin, with its
parameters and buffers taken from the entry's in buffers. The problem file is read in place:
$KFUSE_KERNELBENCH, else the folder it was exported from."""
import importlib.util
import os
import sys

import torch
from torch.func import functional_call

ENTRY = %(entry)r
PROBLEM = %(rel)r
FOLDER = os.environ.get("KFUSE_KERNELBENCH", %(folder)r)
STATE = %(state)r  # the module's parameters and buffers, in the entry's order after the inputs
INPUTS = %(ninputs)d

_models = {}


def _model(device):
    if device not in _models:
        path = os.path.join(FOLDER, PROBLEM)
        # a module of its own name in sys.modules: torch.compile imports the module of the
        # code it traces by that name
        name = "kfuse_twin_" + "".join(c if c.isalnum() else "_" for c in PROBLEM)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        torch.manual_seed(0)
        _models[device] = module.Model(*module.get_init_inputs()).to(device).eval()
    return _models[device]


def forward(*tensors, **sizes):
    model = _model(tensors[0].device)
    state = dict(zip(STATE, tensors[INPUTS:]))
    with torch.no_grad():
        out = functional_call(model, state, tuple(tensors[:INPUTS]))
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)
'''


def twin_source(problem, info, cu_name):
    """The corpus twin (NAME.py beside NAME.cu) of an exported problem."""
    if any(not isinstance(x, torch.Tensor) for x in problem.inputs):
        raise ExportError("get_inputs() returns a value that is not a tensor; the corpus twin passes tensors only",
                          problem.path)
    path = os.path.abspath(problem.path)
    folder = os.path.dirname(os.path.dirname(path))
    state = [info["state"][name] for kind, name in info["params"] if kind != "input"]
    return TWIN % {"cu": cu_name, "version": __version__, "problem": os.path.basename(path),
                   "entry": info["entry"], "rel": os.path.relpath(path, folder), "folder": folder,
                   "state": state, "ninputs": sum(1 for kind, _ in info["params"] if kind == "input")}
