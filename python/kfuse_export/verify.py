"""The twin check (kfuse-export --verify, on a GPU host): the exported file, built with nvcc,
against the PyTorch module on the same inputs, with the contract's tolerance; it names the
output that differs.

The module runs in eval mode, as it was exported (dropout off, batch norm with its running
statistics), with TF32 off, so that its matrix products are float32 as the exported cuBLAS
calls are. The exported
entry gets the module's own parameters and buffers, the inputs get_inputs() draws, and out
buffers filled with NaN, so that an element it never writes shows.
"""
import copy
import ctypes
import os
import re
import subprocess
import tempfile

import torch

from .load import draw_real


def _tolerance(text, dtype):
    m = re.search(r"//\s*kfuse:\s*tol\s+rtol=([0-9.eE+-]+)\s+atol=([0-9.eE+-]+)", text)
    if m:
        return float(m.group(1)), float(m.group(2))
    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 1e-2
    if dtype.is_floating_point:
        return 1e-4, 1e-5
    return 0.0, 0.0


def compare(name, out, ref, rtol, atol, exact=None):
    """None when out matches ref under the contract's rule, else what differs.

    exact, when given, is the module's output computed in float64: the distance of ref from
    it is the module's own rounding noise, and both bounds admit four times that noise, as
    the runner admits four times the reference's own noise (docs/runner.md). An output that
    is nothing but rounding noise (the mean of a normalized tensor, zero in exact arithmetic)
    then matches when it is as close to the exact value as the module is."""
    if out.shape != ref.shape:
        return "'%s' has shape %s, the module's %s" % (name, tuple(out.shape), tuple(ref.shape))
    o, r = out.double().flatten(), ref.double().flatten()
    nan_o, nan_r = torch.isnan(o), torch.isnan(r)
    if not torch.equal(nan_o, nan_r):
        i = int(torch.nonzero(nan_o != nan_r)[0])
        return "'%s' element %d is %s, the module's %s" % (name, i, o[i].item(), r[i].item())
    inf_r = torch.isinf(r)
    if not torch.equal(torch.isinf(o), inf_r) or not torch.equal(o[inf_r], r[inf_r]):
        i = int(torch.nonzero((torch.isinf(o) != inf_r) | (inf_r & (o != r)))[0])
        return "'%s' element %d is %s, the module's %s" % (name, i, o[i].item(), r[i].item())
    fin = torch.isfinite(r)
    if not bool(fin.any()):
        return None
    d = (o[fin] - r[fin]).abs()
    scale = r[fin].abs().max().item()
    worst = d.max().item()
    noise_max = noise_l2 = 0.0
    extra = ""
    if exact is not None:
        e = (r[fin] - exact.double().flatten()[fin]).abs()
        noise_max, noise_l2 = e.max().item(), torch.linalg.vector_norm(e).item()
        extra = " + 4 * the module's own noise %.3g" % noise_max
    if worst > atol + rtol * scale + 4 * noise_max:
        i = int(torch.nonzero(fin)[int(d.argmax())])
        return "'%s' max|out-ref| %.4g at element %d (out %.6g, module %.6g) > %.3g + %.3g * max|ref| %.4g%s" % (
            name, worst, i, o[i].item(), r[i].item(), atol, rtol, scale, extra)
    l2 = torch.linalg.vector_norm(o[fin] - r[fin]).item()
    l2r = torch.linalg.vector_norm(r[fin]).item()
    if l2 > rtol * l2r + 4 * noise_l2:
        if exact is not None:
            extra = " + 4 * the module's own noise %.3g" % noise_l2
        return "'%s' ||out-ref||2 %.4g > %.3g * ||ref||2 %.4g%s" % (name, l2, rtol, l2r, extra)
    return None


def _exact(model, state, inputs):
    """The module's outputs in float64 (a copy of it, from the state before its forward, on
    float64 inputs), or the reason there are none."""
    try:
        twin = copy.deepcopy(model)
        with torch.no_grad():
            named = dict(list(twin.named_parameters()) + list(twin.named_buffers()))
            for k, v in state.items():
                named[k].copy_(v)
            twin = twin.double()
            args = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
            out = twin(*args)
        return list(out) if isinstance(out, (list, tuple)) else [out], None
    except (RuntimeError, TypeError, torch.cuda.OutOfMemoryError) as e:
        return None, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def build(text, nvcc, folder):
    src = os.path.join(folder, "exported.cu")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    major, minor = torch.cuda.get_device_capability()
    lib = os.path.join(folder, "exported.so")
    cmd = [nvcc, "-O3", "-arch=sm_%d%d" % (major, minor), "-shared", "-Xcompiler", "-fPIC", src, "-o", lib]
    if "cublas_v2.h" in text:
        cmd.append("-lcublas")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("nvcc failed: %s" % (p.stderr.strip().splitlines() or ["?"])[-1])
    return lib


def output_buffer(ref):
    """The buffer an entry writes the output ref's twin into: ref's shape and type, row-major
    whatever ref's strides (a batch-first recurrent layer's output is a transposed view, and
    torch's *_like would copy its strides), NaN where it is floating point."""
    fill = float("nan") if ref.dtype.is_floating_point else 0
    return torch.full(tuple(ref.shape), fill, dtype=ref.dtype, device=ref.device)


def twin_check(problem, info, text, nvcc, seed=0):
    """(passed, report) of the exported text against problem's module."""
    if not torch.cuda.is_available():
        return False, "twin check: no GPU here (torch.cuda.is_available() is false)"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    with tempfile.TemporaryDirectory(prefix="kfuse-twin-") as folder:
        try:
            lib = ctypes.CDLL(build(text, nvcc, folder))
        except (RuntimeError, OSError) as e:
            return False, "twin check: %s" % e
        fn = getattr(lib, info["entry"])
        model = problem.model.cuda()
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in draw_real(problem, seed)]
        with torch.no_grad():
            # the entry reads the state as it is before the module's forward (a training-mode
            # batch norm updates its running statistics)
            state = {k: v.detach().clone().contiguous() for k, v in
                     list(model.named_parameters()) + list(model.named_buffers())}
            ref = model(*inputs)
        refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
        tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
        args, keep = [], []
        user = iter(tensors)
        for kind, name in info["params"]:
            t = next(user) if kind == "input" else state[info["state"][name]]
            t = t.contiguous()
            keep.append(t)
            args.append(ctypes.c_void_p(t.data_ptr()))
        outs = []
        for name, r in zip(info["outputs"], refs):
            o = output_buffer(r)
            outs.append(o)
            args.append(ctypes.c_void_p(o.data_ptr()))
        for s in info["symbols"]:
            args.append(ctypes.c_int64(info["examples"][s]))
        args.append(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        fn.restype = None
        fn(*args)
        torch.cuda.synchronize()
        report, ok, exact, no_exact = [], True, None, None
        for i, (name, o, r) in enumerate(zip(info["outputs"], outs, refs)):
            rtol, atol = _tolerance(text, r.dtype)
            why = compare(name, o, r, rtol, atol)
            if why and r.dtype in (torch.float32, torch.float16, torch.bfloat16):
                # beyond the tolerance: is the module's own float rounding as large?
                if exact is None and no_exact is None:
                    exact, no_exact = _exact(model, state, inputs)
                if exact is not None and i < len(exact):
                    again = compare(name, o, r, rtol, atol, exact[i])
                    if again is None:
                        report.append("twin check: %s matches the module within 4 times the module's own "
                                      "rounding noise (its distance from the module in float64; rtol %.0e, "
                                      "atol %.0e)" % (name, rtol, atol))
                        continue
                    why = again
                elif no_exact:
                    why += " (the module's own noise not known: float64 twin: %s)" % no_exact
            if why:
                ok = False
                report.append("twin check: %s differs: %s" % (name, why))
            else:
                report.append("twin check: %s matches the module (rtol %.0e, atol %.0e)" % (name, rtol, atol))
        return ok, "\n".join(report)
