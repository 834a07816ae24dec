"""The twin check (kfuse-export --verify, on a GPU host): the exported file, built with nvcc,
against the PyTorch module on the same inputs, with the contract's tolerance; it names the
output that differs.

The module runs in eval mode, as it was exported (dropout off, batch norm with its running
statistics), with TF32 off, so that its matrix products are float32 as the exported cuBLAS
calls are. The exported
entry gets the module's own parameters and buffers, the inputs get_inputs() draws, and out
buffers filled with NaN, so that an element it never writes shows.
"""
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


def compare(name, out, ref, rtol, atol):
    """None when out matches ref under the contract's rule, else what differs."""
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
    if worst > atol + rtol * scale:
        i = int(torch.nonzero(fin)[int(d.argmax())])
        return "'%s' max|out-ref| %.4g at element %d (out %.6g, module %.6g) > %.3g + %.3g * max|ref| %.4g" % (
            name, worst, i, o[i].item(), r[i].item(), atol, rtol, scale)
    l2 = torch.linalg.vector_norm(o[fin] - r[fin]).item()
    l2r = torch.linalg.vector_norm(r[fin]).item()
    if l2 > rtol * l2r:
        return "'%s' ||out-ref||2 %.4g > %.3g * ||ref||2 %.4g" % (name, l2, rtol, l2r)
    return None


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
            o = torch.full_like(r, float("nan")) if r.dtype.is_floating_point else torch.empty_like(r)
            outs.append(o)
            args.append(ctypes.c_void_p(o.data_ptr()))
        for s in info["symbols"]:
            args.append(ctypes.c_int64(info["examples"][s]))
        args.append(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        fn.restype = None
        fn(*args)
        torch.cuda.synchronize()
        report, ok = [], True
        for name, o, r in zip(info["outputs"], outs, refs):
            rtol, atol = _tolerance(text, r.dtype)
            why = compare(name, o, r, rtol, atol)
            if why:
                ok = False
                report.append("twin check: %s differs: %s" % (name, why))
            else:
                report.append("twin check: %s matches the module (rtol %.0e, atol %.0e)" % (name, rtol, atol))
        return ok, "\n".join(report)
