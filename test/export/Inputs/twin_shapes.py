"""Reads an exported .cu with the benchmark's own contract reader (benchmarks/lib/contract.py)
and calls its twin as benchmarks/run does (in buffers drawn per their init lines, positionally;
scalars as keywords) at each check binding, on the CPU. Prints each output's shape against
its out extents; exits 1 when they differ. With --compile, also calls the twin through
torch.compile (the eager backend: dynamo traces it as benchmarks/run's compile column does)
and says whether it returns the same.

    python twin_shapes.py SRCROOT FILE.cu FILE.py [--compile]
"""
import importlib.util
import sys

import torch

root, cu, py = sys.argv[1:4]
sys.path.insert(0, root + "/benchmarks/lib")
import contract  # noqa: E402

entry = list(contract.parse_file(cu).values())[0]
spec = importlib.util.spec_from_file_location("twin", py)
twin = importlib.util.module_from_spec(spec)
spec.loader.exec_module(twin)
assert twin.ENTRY == entry.name, (twin.ENTRY, entry.name)
bad = 0
for binding in entry.checks:
    env = binding.values
    ins = []
    for b in entry.buffers:
        if b.role != "in":
            continue
        d = b.init(env)
        shape = b.shape(env)
        if d[0] == "normal":
            t = torch.randn(shape, dtype=getattr(torch, b.dtype))
        elif d[0] == "uniform":
            t = torch.empty(shape, dtype=getattr(torch, b.dtype)).uniform_(d[1], d[2])
        else:
            t = torch.randint(int(d[1]), int(d[2]), shape, dtype=getattr(torch, b.dtype))
        ins.append(t)
    outs = twin.forward(*ins, **env)
    if "--compile" in sys.argv[4:]:
        compiled = torch.compile(twin.forward, backend="eager")(*ins, **env)
        same = all(torch.equal(a, b) for a, b in zip(outs, compiled))
        bad += not same
        print("%s compiled: %s" % (binding.text, "same" if same else "DIFFERS"))
    want = [b for b in entry.buffers if b.role == "out"]
    for b, o in zip(want, outs):
        ok = list(o.shape) == b.shape(env) or (b.shape(env) == [1] and o.dim() == 0)
        bad += not ok
        print("%s %s: %s %s, extents %s" % (binding.text, b.name, "ok" if ok else "DIFFERS", list(o.shape),
                                            b.shape(env)))
sys.exit(1 if bad else 0)
