"""Unit checks of the exporter's pieces that need no GPU: the twin check's comparison rule,
size expressions printed as C, and the views' strides. Prints one line a check; exits 1 when
one fails."""
import sys

import sympy
import torch

from kfuse_export.cexpr import Printer
from kfuse_export.lower import Val, unflatten
from kfuse_export.verify import _exact, compare, output_buffer, run_entry

failed = 0


def check(name, got, want):
    global failed
    ok = got == want
    failed += not ok
    print("%s: %s%s" % (name, "ok" if ok else "FAILED", "" if ok else " (got %r, want %r)" % (got, want)))


ref = torch.tensor([1.0, 2.0, float("nan"), float("inf")])
check("equal", compare("y", ref.clone(), ref, 1e-4, 1e-5), None)
near = ref.clone()
near[1] += 1e-5
check("within tolerance", compare("y", near, ref, 1e-4, 1e-5), None)
far = ref.clone()
far[1] += 1e-2
check("beyond tolerance", (compare("y", far, ref, 1e-4, 1e-5) or "").startswith("'y' max|out-ref|"), True)
nan = ref.clone()
nan[0] = float("nan")
check("nan where the module has none", compare("y", nan, ref, 1e-4, 1e-5),
      "'y' element 0 is nan, the module's 1.0")
ninf = ref.clone()
ninf[3] = -float("inf")
check("inf of the other sign", (compare("y", ninf, ref, 1e-4, 1e-5) or "").startswith("'y' element 3"), True)
check("shape", compare("y", ref[:2], ref, 1e-4, 1e-5), "'y' has shape (2,), the module's (4,)")
# an output that is rounding noise (zero in exact arithmetic): the module's 1e-8s against the
# export's others fail the L2 bound alone, and pass with the module's float64 value beside them
noise_ref = torch.tensor([3e-8, -2e-8, 1e-8, -4e-8])
noise_out = torch.tensor([-1e-8, 2e-8, 3e-8, 1e-8])
exact = torch.zeros(4, dtype=torch.float64)
check("noise alone fails", (compare("y", noise_out, noise_ref, 1e-3, 1e-4) or "").startswith("'y' ||out-ref||2"), True)
check("within the module's own noise", compare("y", noise_out, noise_ref, 1e-3, 1e-4, exact), None)
check("beyond the module's own noise",
      (compare("y", noise_out * 100, noise_ref, 1e-3, 1e-4, exact) or "").endswith("own noise 5.48e-08"), True)
# read in chunks (3 elements at a time here), the verdicts and their numbers are the same
torch.manual_seed(0)
big_ref = torch.randn(10)
big_ref[4] = float("nan")
big_out = big_ref.clone()
big_out[7] += 0.5
big_out[8] += 0.25
cases = [(far, ref, None), (nan, ref, None), (ninf, ref, None), (near, ref, None), (big_out, big_ref, None),
         (noise_out, noise_ref, None), (noise_out, noise_ref, exact), (noise_out * 100, noise_ref, exact)]
check("in chunks", [compare("y", o, r, 1e-3, 1e-4, e, chunk=3) for o, r, e in cases],
      [compare("y", o, r, 1e-3, 1e-4, e) for o, r, e in cases])
check("in chunks, the worst element's index", (compare("y", big_out, big_ref, 1e-3, 1e-4, chunk=3) or "")[:35],
      "'y' max|out-ref| 0.5 at element 7 (")
# the float64 twin runs from the state as it was before the module's forward: a training-mode
# batch norm's running mean, updated by that forward, is put back
bn = torch.nn.BatchNorm1d(3)
x = torch.randn(5, 3)
state = {k: v.detach().clone() for k, v in list(bn.named_parameters()) + list(bn.named_buffers())}
bn(x)
bn.eval()
out, why = _exact(bn, state, [x])
check("float64 twin", (out[0].dtype, why), (torch.float64, None))
# in eval mode the output uses the running statistics: the state's (mean 0, variance 1), not
# those the forward above left
check("float64 twin from the state before", torch.allclose(out[0], x.double() / (1 + bn.eps) ** 0.5), True)
check("the module keeps its own", torch.allclose(bn(x).double(), out[0]), False)

B = sympy.Symbol("s0")
pr = Printer({"s0": "batch_size"})
check("product", pr(4096 * B), "4096 * batch_size")
check("sum", pr(B * 3 + 1), "3 * batch_size + 1")
check("symbols used", pr.used, {"batch_size"})
check("unflatten", unflatten("i", [B, sympy.Integer(24), sympy.Integer(40)], pr),
      ["i / 960", "(i / 40) % 24", "i % 40"])
v = Val("x", torch.float32, [B, 24, 40])
check("contiguous strides", [str(s) for s in v.strides], ["960", "40", "1"])
check("contiguous", v.is_contiguous(), True)
t = v.with_([B, 40, 24], [960, 1, 40])
check("a transposed view is not contiguous", t.is_contiguous(), False)
gru = torch.nn.GRU(3, 2, batch_first=True, bidirectional=True)
z, _ = gru(torch.randn(4, 5, 3))
o = output_buffer(z)
check("an output buffer is row-major", (z.is_contiguous(), o.is_contiguous(), tuple(o.shape),
                                         bool(o.isnan().all())), (False, True, (4, 5, 4), True))


class FakeRuntime:
    """A library built with the error probe, as run_entry sees it: errors the entry sets as
    it runs, and errors that only the wait brings."""

    class Fn:
        def __init__(self, rt):
            self.rt, self.restype = rt, None

        def __call__(self, *args):
            self.rt.last = self.rt.at_call

    def __init__(self, at_call, at_wait):
        self.at_call, self.at_wait, self.last, self.waited = at_call, at_wait, 0, False
        self.kfuse_twin_error_name = lambda e: {2: b"cudaErrorMemoryAllocation", 700: b"cudaErrorIllegalAddress"}[e]
        self.kfuse_twin_error_string = lambda e: {2: b"out of memory", 700: b"an illegal memory access"}[e]

    def kfuse_twin_last_error(self):
        e, self.last = self.last, 0
        return e

    def synchronize(self):
        self.waited = True
        self.last = self.last or self.at_wait


rt = FakeRuntime(0, 0)
check("entry without error", (run_entry(rt, FakeRuntime.Fn(rt), [], rt.synchronize), rt.waited), (None, True))
rt = FakeRuntime(2, 700)
check("a failed allocation named before the wait",
      (run_entry(rt, FakeRuntime.Fn(rt), [], rt.synchronize), rt.waited),
      ("cudaErrorMemoryAllocation (out of memory)", False))
rt = FakeRuntime(0, 700)
check("a kernel's fault after the wait", run_entry(rt, FakeRuntime.Fn(rt), [], rt.synchronize),
      "cudaErrorIllegalAddress (an illegal memory access)")
sys.exit(1 if failed else 0)
