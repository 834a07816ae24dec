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


# elements compared at a time: float64 copies of a whole 6 GiB output (level 1's activations
# at their example sizes) would need several times the GPU memory the module itself needs
CHUNK = 1 << 26


def compare(name, out, ref, rtol, atol, exact=None, chunk=CHUNK):
    """None when out matches ref under the contract's rule, else what differs.

    exact, when given, is the module's output computed in float64: the distance of ref from
    it is the module's own rounding noise, and both bounds admit four times that noise, as
    the runner admits four times the reference's own noise (docs/runner.md). An output that
    is nothing but rounding noise (the mean of a normalized tensor, zero in exact arithmetic)
    then matches when it is as close to the exact value as the module is.

    The outputs are read chunk elements at a time, in float64, so that comparing needs little
    memory beside them; the verdict is the same as over the whole."""
    if out.shape != ref.shape:
        return "'%s' has shape %s, the module's %s" % (name, tuple(out.shape), tuple(ref.shape))
    of, rf = out.reshape(-1), ref.reshape(-1)
    ef = exact.reshape(-1) if exact is not None else None
    bad_nan = bad_inf = None  # the first element whose NaN, or whose infinity, differs
    finite = False
    worst, worst_at, scale = -1.0, None, 0.0
    diff_sq = ref_sq = noise_max = noise_sq = 0.0
    for lo in range(0, of.numel(), chunk):
        o, r = of[lo:lo + chunk].double(), rf[lo:lo + chunk].double()
        nan_o, nan_r = torch.isnan(o), torch.isnan(r)
        if bad_nan is None and not torch.equal(nan_o, nan_r):
            bad_nan = lo + int(torch.nonzero(nan_o != nan_r)[0])
        inf_r = torch.isinf(r)
        wrong = (torch.isinf(o) != inf_r) | (inf_r & (o != r))
        if bad_inf is None and bool(wrong.any()):
            bad_inf = lo + int(torch.nonzero(wrong)[0])
        fin = torch.isfinite(r)
        if not bool(fin.any()):
            continue
        finite = True
        at = torch.nonzero(fin).flatten()
        d = (o[fin] - r[fin]).abs()
        k = int(d.argmax())
        if d[k].item() > worst:
            worst, worst_at = d[k].item(), lo + int(at[k])
        scale = max(scale, r[fin].abs().max().item())
        diff_sq += float((d * d).sum())
        ref_sq += float((r[fin] * r[fin]).sum())
        if ef is not None:
            e = (r[fin] - ef[lo:lo + chunk].double()[fin]).abs()
            noise_max = max(noise_max, e.max().item())
            noise_sq += float((e * e).sum())
    for i in (bad_nan, bad_inf):
        if i is not None:
            return "'%s' element %d is %s, the module's %s" % (name, i, of[i].item(), rf[i].item())
    if not finite:
        return None
    extra = " + 4 * the module's own noise %.3g" % noise_max if ef is not None else ""
    if worst > atol + rtol * scale + 4 * noise_max:
        return "'%s' max|out-ref| %.4g at element %d (out %.6g, module %.6g) > %.3g + %.3g * max|ref| %.4g%s" % (
            name, worst, worst_at, of[worst_at].item(), rf[worst_at].item(), atol, rtol, scale, extra)
    l2, l2r, noise_l2 = diff_sq ** 0.5, ref_sq ** 0.5, noise_sq ** 0.5
    if l2 > rtol * l2r + 4 * noise_l2:
        if ef is not None:
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


# compiled with the exported file for the twin check alone: the CUDA runtime's last error, as
# the exported library's own runtime (nvcc links it statically) saw it. A cudaMallocAsync that
# fails (the GPU's memory taken by other checks) leaves its pointer unset, and the kernels after
# it can then write anywhere: the check must say so rather than compare what came out.
ERROR_PROBE = """
extern "C" int kfuse_twin_last_error(void) { return (int)cudaGetLastError(); }
extern "C" const char* kfuse_twin_error_name(int e) { return cudaGetErrorName((cudaError_t)e); }
extern "C" const char* kfuse_twin_error_string(int e) { return cudaGetErrorString((cudaError_t)e); }
"""


def run_entry(lib, fn, args, synchronize):
    """Calls the exported entry fn of lib (built with ERROR_PROBE) and waits for it: None, or
    the CUDA error the entry met, "NAME (STRING)".

    The probe is read twice. First as soon as the entry returns, before anything waits on the
    GPU: a cudaMallocAsync that failed has set the runtime's last error by then, and the
    kernels launched after it on its unset pointer may fault, a fault that the wait would
    report in its place (level1/94 on a shared GPU, session 26: "illegal memory access"
    where the cause was memory taken by the other checks). Then after the wait, for what
    the kernels themselves met."""
    lib.kfuse_twin_error_name.restype = lib.kfuse_twin_error_string.restype = ctypes.c_char_p
    lib.kfuse_twin_last_error()  # clear what came before the entry
    fn.restype = None
    fn(*args)
    err = lib.kfuse_twin_last_error()
    if not err:
        synchronize()
        err = lib.kfuse_twin_last_error()
    if not err:
        return None
    return "%s (%s)" % (lib.kfuse_twin_error_name(err).decode(), lib.kfuse_twin_error_string(err).decode())


def build(text, nvcc, folder, arch=None):
    """The exported text and the error probe as a shared library in folder, for arch (say
    "sm_90"; default: this GPU's)."""
    src = os.path.join(folder, "exported.cu")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
        f.write(ERROR_PROBE)
    if arch is None:
        arch = "sm_%d%d" % torch.cuda.get_device_capability()
    lib = os.path.join(folder, "exported.so")
    cmd = [nvcc, "-O3", "-arch=" + arch, "-shared", "-Xcompiler", "-fPIC", src, "-o", lib]
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
        failed = run_entry(lib, fn, args, torch.cuda.synchronize)
        if failed:
            return False, "twin check: the entry failed: %s" % failed
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
