"""Loading a module file in KernelBench's form: `Model`, `get_inputs()`, `get_init_inputs()`.

The file is run as a module (its sizes are what it leaves them as, never what a parser
reads). The model is built with torch's generator seeded, so that its parameters are the
same in every run. The inputs are drawn with the drawing functions watched: what each
input came from (`torch.rand` is `uniform(0,1)`, `torch.randn` is `normal`, `torch.randint`
is `int(LO,HI)`) becomes its `init` line. With `lazy`, the drawing functions return
uninitialized tensors of the same shape and type: capture needs shapes, not values, and
KernelBench's sizes reach gigabytes.
"""
import contextlib
import importlib.util
import os
import sys
import traceback

import torch

from .errors import ExportError

REQUIRED = ("Model", "get_inputs", "get_init_inputs")


class Problem:
    """A loaded module file."""

    def __init__(self, path, module, model, inputs, draws, names):
        self.path = path
        self.module = module
        self.model = model
        self.inputs = inputs      # the forward's positional arguments
        self.draws = draws        # per input: its init text, or None (not drawn by a watched call)
        self.names = names        # the file's module-level integers: {name: value}


def _where(path, exc):
    """The line of path where exc was raised (the innermost frame in that file)."""
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == os.path.abspath(path):
            line = frame.lineno or 0
    return line


def _first_col(path, line):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().splitlines()[line - 1]
        return len(text) - len(text.lstrip()) + 1
    except (OSError, IndexError):
        return 1


def fail_at(path, line, message):
    raise ExportError(message, path, line, _first_col(path, line) if line else 0)


@contextlib.contextmanager
def watched_draws(tags, lazy):
    """torch.rand, randn, randint (and their _like forms) tag what they return in tags
    (id -> init text); with lazy, they return torch.empty instead of drawing."""
    saved = {}

    def wrap(name, init_of):
        real = getattr(torch, name)

        def drawn(*args, **kwargs):
            if lazy:
                t = _empty_like_call(name, real, args, kwargs)
            else:
                t = real(*args, **kwargs)
            tags[id(t)] = (t, init_of(args, kwargs))
            return t

        saved[name] = real
        setattr(torch, name, drawn)

    def randint_init(args, kwargs):
        if "high" in kwargs:
            low, high = kwargs.get("low", 0), kwargs["high"]
        elif len(args) >= 2 and not isinstance(args[1], (tuple, list, torch.Size)):
            low, high = args[0], args[1]
        else:
            low, high = 0, args[0]
        return "int(%d,%d)" % (low, high)

    wrap("rand", lambda a, k: "uniform(0,1)")
    wrap("randn", lambda a, k: "normal")
    wrap("rand_like", lambda a, k: "uniform(0,1)")
    wrap("randn_like", lambda a, k: "normal")
    wrap("randint", randint_init)
    try:
        yield
    finally:
        for name, real in saved.items():
            setattr(torch, name, real)


def _empty_like_call(name, real, args, kwargs):
    """An uninitialized tensor of the shape and type the drawing call would return."""
    kw = {k: v for k, v in kwargs.items() if k in ("dtype", "device", "requires_grad")}
    kw.pop("device", None)
    if name.endswith("_like"):
        src = args[0]
        return torch.empty(src.shape, dtype=kw.get("dtype", src.dtype))
    if name == "randint":
        if "size" in kwargs:
            size = kwargs["size"]
        else:
            size = next(a for a in args if isinstance(a, (tuple, list, torch.Size)))
        return torch.empty(tuple(size), dtype=kw.get("dtype", torch.int64))
    size = kwargs.get("size", args)
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = size[0]
    return torch.empty(tuple(size), dtype=kw.get("dtype", torch.get_default_dtype()))


def load(path, lazy=True, seed=0):
    """Runs the file and builds its model and inputs (a Problem)."""
    if not os.path.isfile(path):
        raise ExportError("no such file", path)
    name = "kfuse_export_problem_%d" % (abs(hash(os.path.abspath(path))) % 10**8)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ExportError("not a Python file", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ExportError("the module does not parse: %s" % e.msg, path, e.lineno or 0, e.offset or 1)
    except Exception as e:  # the module's own code failed
        fail_at(path, _where(path, e), "running the module failed: %s: %s" % (type(e).__name__, e))
    missing = [n for n in REQUIRED if not hasattr(module, n)]
    if missing:
        raise ExportError("the module has no %s (a KernelBench problem file defines Model, get_inputs() "
                          "and get_init_inputs())" % ", ".join(missing), path)
    names = {k: v for k, v in vars(module).items()
             if isinstance(v, int) and not isinstance(v, bool) and not k.startswith("_")}
    torch.manual_seed(seed)
    try:
        init = module.get_init_inputs()
        model = module.Model(*init)
    except Exception as e:
        fail_at(path, _where(path, e), "building the model failed: %s: %s" % (type(e).__name__, e))
    model.eval()  # deterministic semantics: dropout off, batch norm with its running statistics
    tags = {}
    try:
        with watched_draws(tags, lazy):
            inputs = module.get_inputs()
    except Exception as e:
        fail_at(path, _where(path, e), "get_inputs() failed: %s: %s" % (type(e).__name__, e))
    if not isinstance(inputs, (list, tuple)):
        raise ExportError("get_inputs() returned a %s, not a list" % type(inputs).__name__, path)
    draws = []
    for x in inputs:
        tag = tags.get(id(x))
        draws.append(tag[1] if tag is not None and tag[0] is x else None)
    return Problem(path, module, model, list(inputs), draws, names)


def draw_real(problem, seed=0):
    """The inputs drawn for real (the twin check), in the same way the file draws them."""
    torch.manual_seed(seed)
    return list(problem.module.get_inputs())
