"""Capturing a model's forward pass as ATen core operators.

First `torch.export.export` with the batch dimension symbolic (dimension 0 of every
tensor input, one `Dim` per distinct size, named after the file's variable of that value);
when export refuses that, `torch.export.export` with static shapes; when export fails
altogether, `torch.fx` (make_fx, with fake tensors). Either way the graph is decomposed to
ATen's core operators, and the capture says which way it went.
"""
import warnings

import torch
from torch.export import Dim

from .errors import ExportError


class Capture:
    """A captured forward pass.

    graph      the fx graph of ATen core operators
    inputs     per placeholder, in order: (kind, name, tensor) where kind is "input"
               (tensor is the example input, or None for a non-tensor argument), "parameter"
               or "buffer" (tensor holds the module's values)
    method     "torch.export (dynamic batch)", "torch.export (static shapes)" or "torch.fx (make_fx)"
    symbols    {sympy symbol name: C name} of the symbolic sizes
    ranges     {C name: (lower, upper)} the range export allows each symbolic size
    fallbacks  why each earlier way failed (the first line of its error)
    """

    def __init__(self, graph, inputs, method, symbols, ranges, fallbacks):
        self.graph = graph
        self.inputs = inputs
        self.method = method
        self.symbols = symbols
        self.ranges = ranges
        self.fallbacks = fallbacks


def _dim_names(problem):
    """The C name for a batch size of each value: the file's variable of that value,
    `batch_size` first, else B, B1, ..."""
    by_value = {}
    for name, value in problem.names.items():
        if name == "batch_size" or value not in by_value:
            by_value[value] = name
    return by_value


def _dynamic_spec(problem):
    names = _dim_names(problem)
    dims, spec, used = {}, [], set()
    for x in problem.inputs:
        if not isinstance(x, torch.Tensor) or x.dim() == 0 or x.shape[0] < 2:
            spec.append(None)
            continue
        size = int(x.shape[0])
        if size not in dims:
            name = names.get(size, "B")
            base, k = name, 1
            while name in used:
                name = "%s%d" % (base, k)
                k += 1
            used.add(name)
            dims[size] = Dim(name, min=2)
        spec.append({0: dims[size]})
    return tuple(spec) if any(s is not None for s in spec) else None


def _first_line(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0] if text else "")


def _from_export(ep):
    """The placeholders of an exported program: (kind, name, tensor) each."""
    sig = ep.graph_signature
    kinds = {}
    for spec in sig.input_specs:
        kind = spec.kind.name
        if kind == "USER_INPUT":
            kinds[spec.arg.name] = ("input", None)
        elif kind == "PARAMETER":
            kinds[spec.arg.name] = ("parameter", spec.target)
        elif kind == "BUFFER":
            kinds[spec.arg.name] = ("buffer", spec.target)
        elif kind == "CONSTANT_TENSOR":
            kinds[spec.arg.name] = ("constant", spec.target)
        else:
            raise ExportError("the captured graph has an input of kind %s, which the exporter does not take" % kind)
    for spec in sig.output_specs:
        if spec.kind.name != "USER_OUTPUT":
            raise ExportError("the forward pass updates module state (%s of %s), which an exported entry "
                              "cannot keep" % (spec.kind.name.lower().replace("_", " "), spec.target))
    inputs = []
    for node in ep.graph.nodes:
        if node.op != "placeholder":
            continue
        kind, target = kinds[node.name]
        if kind == "input":
            inputs.append(("input", node.name, None))
        elif kind == "constant":
            inputs.append(("constant", target, ep.constants[target]))
        else:
            value = ep.state_dict[target] if target in ep.state_dict else ep.constants[target]
            inputs.append((kind, target, value))
    return inputs


def capture(problem, dynamic=True):
    """Captures problem's forward pass (a Capture)."""
    from . import rnn
    model, args = problem.model, tuple(problem.inputs)
    rnn.patch(model)  # recurrent layers kept whole (rnn.py)
    fallbacks = []
    spec = _dynamic_spec(problem) if dynamic else None
    attempts = []
    if spec is not None:
        attempts.append(("torch.export (dynamic batch)", spec))
    attempts.append(("torch.export (static shapes)", None))
    for method, dyn in attempts:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ep = torch.export.export(model, args, dynamic_shapes=dyn, strict=False)
                ep = ep.run_decompositions()
        except Exception as e:  # export refused: try the next way
            fallbacks.append("%s: %s" % (method, _first_line(e)))
            continue
        inputs = _from_export(ep)
        names = _symbol_names(ep.graph, problem, dyn)
        ranges = {names[str(sym)]: (_bound(rng.lower), _bound(rng.upper))
                  for sym, rng in ep.range_constraints.items() if str(sym) in names}
        return Capture(ep.graph, inputs, method, names, ranges, fallbacks)
    return _capture_fx(problem, fallbacks)


def _bound(value):
    """A range's end as an int, or None where it is unbounded."""
    try:
        v = int(value)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None
    return v if abs(v) < 2**62 else None


def _symbol_names(graph, problem, dyn):
    """{symbol: C name}: the Dim given to an input's dimension 0 names the symbol there."""
    names = {}
    if dyn is None:
        return names
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    # user inputs are the last placeholders, in forward's order
    user = placeholders[len(placeholders) - len(problem.inputs):]
    for node, d in zip(user, dyn):
        if d is None:
            continue
        val = node.meta.get("val")
        s = val.shape[0] if isinstance(val, torch.Tensor) else None
        if isinstance(s, torch.SymInt) and s.node.expr.is_Symbol:
            names[str(s.node.expr)] = d[0].__name__
    return names


def _capture_fx(problem, fallbacks):
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.func import functional_call

    model = problem.model
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    state = {**params, **buffers}
    keys = list(state)

    def forward(flat, *args):
        return functional_call(model, dict(zip(keys, flat)), args)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # functionalized: in-place operators become their out-of-place forms
            gm = make_fx(torch.func.functionalize(forward, remove="mutations_and_views"),
                         decomposition_table=core_aten_decompositions(),
                         tracing_mode="fake")([state[k] for k in keys], *problem.inputs)
    except Exception as e:
        fallbacks.append("torch.fx (make_fx): %s" % _first_line(e))
        raise ExportError("neither torch.export nor torch.fx could capture the forward pass: "
                          + "; ".join(fallbacks), problem.path)
    inputs = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for i, node in enumerate(placeholders):
        if i < len(keys):
            k = keys[i]
            inputs.append(("parameter" if k in params else "buffer", k, state[k]))
        else:
            inputs.append(("input", node.name, None))
    return Capture(gm.graph, inputs, "torch.fx (make_fx)", {}, {}, fallbacks)
