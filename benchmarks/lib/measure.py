"""Verifying and timing one benchmark problem on the GPU (needs torch).

One method for everything measured (the reference CUDA entry, the kfuse output, PyTorch
eager, torch.compile):

- Timing: CUDA events recorded on the problem's stream around one call; before each call
  the inout buffers are restored (outside the events) and a buffer larger than the L2
  (256 MiB by default) is overwritten, so no call finds its data in the cache; the host
  waits for each call before the next, so host-side launch cost shows when it exceeds the
  GPU's work (as KernelBench does). Warm-up first (at least 2 calls, about 50 ms), then
  at least 30 timed calls (at most 100; down to 5 when one call takes over 100 ms),
  within a per-variant budget. Median, p10 and p90 are kept.
- Verification: inputs drawn per the contract's `init` lines on fresh seeds, out buffers
  poisoned (NaN, or 0xA5 bytes for integers), the PyTorch twin as the reference, and the
  contract's tolerance rule per buffer; in buffers must come back bit-identical.

Also runs on CPU tensors (device "cpu": perf_counter timing, no flush, no streams) so that
the logic can be tested on a machine without a GPU; only the CUDA path is used for results.
"""

import ctypes
import gc
import hashlib
import importlib.util
import math
import os
import time
import traceback

import torch

import contract

FLUSH_BYTES_DEFAULT = 256 << 20


class Poisoned(Exception):
    """A CUDA error that leaves the process's context unusable (an illegal address, say).
    The worker reports it and exits; the driver retries the problem without the variant."""

    def __init__(self, variant, message):
        super().__init__(message)
        self.variant = variant


class VariantError(Exception):
    """A failure of one variant that leaves the process usable."""


def setup_torch():
    """TF32 off, so float32 matrix products are true float32 (as the references compute)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def short_error(exc, limit=600):
    """One line (or a few) describing an exception, for records."""
    text = "%s: %s" % (type(exc).__name__, str(exc).strip())
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------------------------------
# The device: CUDA, or CPU for tests


class Device:
    """What differs between a CUDA device and the CPU test device: synchronizing, the
    stream a problem runs on, the L2 flush and the clock."""

    def __init__(self, name="cuda", flush_bytes=FLUSH_BYTES_DEFAULT):
        self.name = name
        self.torch_device = torch.device(name)
        self.is_cuda = name.startswith("cuda")
        self.flush_buf = None
        if self.is_cuda:
            props = torch.cuda.get_device_properties(self.torch_device)
            l2 = getattr(props, "L2_cache_size", 0) or 0
            flush_bytes = max(flush_bytes, 4 * l2)
            self.flush_buf = torch.empty(flush_bytes, dtype=torch.uint8, device=self.torch_device)
            self.dedicated, self.stream_kind = self._dedicated_stream()
        self.flush_bytes = flush_bytes if self.is_cuda else 0

    def _dedicated_stream(self):
        """The non-default stream the entries get. Made by cudaStreamCreate (default
        flags), so it is a *blocking* stream: work that an entry queues, against the
        contract, on the legacy default stream is still ordered between our events and
        timed. Falls back to a stream of PyTorch's pool (non-blocking)."""
        try:
            handle = ctypes.c_void_p()
            err = torch.cuda.cudart().cudaStreamCreate(ctypes.addressof(handle))
            if int(err) != 0 or not handle.value:
                raise RuntimeError("cudaStreamCreate: %s" % err)
            return torch.cuda.ExternalStream(handle.value, device=self.torch_device), "blocking"
        except Exception:               # noqa: BLE001 - the fallback is still a valid stream
            return torch.cuda.Stream(device=self.torch_device), "non-blocking"

    def stream_for(self, entry):
        """The stream a problem runs on: a dedicated non-default stream when the entry
        takes a cudaStream_t, else the legacy default stream (which the entry will use)."""
        if not self.is_cuda:
            return None
        return self.dedicated if entry.has_stream else torch.cuda.default_stream(self.torch_device)

    def stream_context(self, stream):
        if stream is None:
            import contextlib
            return contextlib.nullcontext()
        return torch.cuda.stream(stream)

    @staticmethod
    def stream_handle(stream):
        return stream.cuda_stream if stream is not None else 0

    def sync(self):
        if self.is_cuda:
            torch.cuda.synchronize(self.torch_device)

    def flush(self):
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    def healthy(self):
        """Whether the CUDA context still works after an error (a sticky error, such as
        an illegal address, makes every later call fail)."""
        if not self.is_cuda:
            return True
        try:
            torch.cuda.synchronize(self.torch_device)
            t = torch.ones(16, device=self.torch_device)
            return float((t + 1).sum().item()) == 32.0
        except Exception:               # noqa: BLE001 - any failure means unusable
            return False

    def free(self):
        gc.collect()
        if self.is_cuda:
            torch.cuda.empty_cache()


# ---------------------------------------------------------------------------------------
# Timing


def percentile(sorted_values, q):
    """Linear-interpolated percentile (q in [0, 100]) of an ascending list."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def stats(samples_ms):
    s = sorted(samples_ms)
    return {"median_ms": percentile(s, 50), "p10_ms": percentile(s, 10),
            "p90_ms": percentile(s, 90), "min_ms": s[0], "mean_ms": sum(s) / len(s),
            "reps": len(s)}


class Settings:
    """Timing knobs (see the module's docstring); built from the job's `settings` dict."""

    def __init__(self, d=None):
        d = d or {}
        self.budget_s = float(d.get("rep_budget_s", 3.0))     # per variant, per binding
        self.min_reps = int(d.get("min_reps", 30))
        self.max_reps = int(d.get("max_reps", 100))
        self.slow_ms = float(d.get("slow_ms", 100.0))
        self.min_slow_reps = int(d.get("min_slow_reps", 5))
        self.warmup_s = float(d.get("warmup_s", 0.05))
        self.min_warmup = int(d.get("min_warmup", 2))
        self.max_warmup = int(d.get("max_warmup", 10))


def time_call(dev, stream, fn, prepare, settings):
    """Times `fn()` (which queues work on `stream`) by the one method; `prepare()` (may be
    None) runs before each call, outside the timed region. Returns stats()."""

    def once():
        if prepare is not None:
            prepare()
        if not dev.is_cuda:
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3
        dev.flush()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        fn()
        end.record(stream)
        end.synchronize()
        return start.elapsed_time(end)

    warm, spent = 0, 0.0
    est = None
    while warm < settings.min_warmup or (spent < settings.warmup_s * 1e3 and warm < settings.max_warmup):
        est = once()
        spent += est
        warm += 1
        if est > settings.slow_ms:
            break                       # one slow call is warm-up enough
    budget_ms = settings.budget_s * 1e3
    if est > settings.slow_ms:
        reps = max(settings.min_slow_reps, min(settings.min_reps, int(budget_ms / est)))
    else:
        reps = max(settings.min_reps, min(settings.max_reps, int(budget_ms / max(est, 1e-3))))
    samples = [once() for _ in range(reps)]
    dev.sync()
    result = stats(samples)
    result["warmup"] = warm
    return result


# ---------------------------------------------------------------------------------------
# Inputs, outputs and comparison


def torch_dtype(buf):
    return getattr(torch, buf.dtype)


def draw(buf, shape, dist, gen, dev):
    """A tensor for input buffer `buf` of `shape`, drawn from `dist` (Buffer.init())."""
    dt = torch_dtype(buf)
    device = dev.torch_device
    kind = dist[0]
    if kind in ("normal", "uniform"):
        gdt = dt if dt in (torch.float32, torch.float64) else torch.float32
        if kind == "normal":
            t = torch.randn(shape, generator=gen, device=device, dtype=gdt)
        else:
            lo, hi = float(dist[1]), float(dist[2])
            t = torch.rand(shape, generator=gen, device=device, dtype=gdt)
            t.mul_(hi - lo).add_(lo)
        if buf.type_kind != "float":
            t = t.round()
        return t.to(dt) if t.dtype != dt else t
    lo, hi = int(math.ceil(dist[1])), int(math.ceil(dist[2]))
    if hi <= lo:
        raise VariantError("init %s: empty range int(%d,%d)" % (buf.name, lo, hi))
    if dt == torch.bool:
        return torch.randint(lo, hi, shape, generator=gen, device=device, dtype=torch.uint8).bool()
    return torch.randint(lo, hi, shape, generator=gen, device=device, dtype=dt)


def poison(t):
    """Fills an output with a value no correct program leaves: NaN for floating buffers,
    0xA5 bytes for integer and bool buffers (an invalid bool, a large odd integer)."""
    if t.numel() == 0:
        return t
    if t.is_floating_point():
        t.fill_(float("nan"))
    else:
        t.reshape(-1).view(torch.uint8).fill_(0xA5)
    return t


def as_bytes(t):
    return t.reshape(-1).view(torch.uint8) if t.numel() else t.reshape(-1)


CHUNK = 1 << 25


def compare(out, ref, tol):
    """Compares an out/inout buffer with the twin's result by the contract's rule.

    tol: (rtol, atol) for floating buffers, None for an exact comparison. Returns a dict
    with `pass` and the numbers behind it: max_abs_err, max_ref, bound (atol + rtol *
    max_ref), l2_err, l2_ref, rel_l2, nan_mismatch, inf_mismatch; `mismatches` for exact
    comparisons."""
    if not isinstance(ref, torch.Tensor):
        return {"pass": False, "error": "the twin returned %s, not a tensor" % type(ref).__name__}
    if out.numel() != ref.numel():
        return {"pass": False, "error": "the twin returned %d elements (shape %s); the buffer "
                "has %d" % (ref.numel(), list(ref.shape), out.numel())}
    res = {}
    if list(ref.shape) != list(out.shape):
        res["note"] = "twin shape %s, buffer shape %s" % (list(ref.shape), list(out.shape))
    if ref.dtype != out.dtype:
        res["twin_dtype"] = str(ref.dtype).replace("torch.", "")
    o = out.reshape(-1)
    r = ref.reshape(-1).to(out.device)
    if tol is None:
        if o.dtype == torch.bool:
            o, r = o.view(torch.uint8), r.to(torch.uint8)
        else:
            r = r.to(o.dtype)
        mism = int((o != r).sum().item()) if o.numel() else 0
        res.update({"pass": mism == 0, "mismatches": mism, "exact": True})
        return res
    rtol, atol = tol
    zero = torch.zeros((), dtype=torch.float64, device=out.device)
    max_err, max_ref, l2e, l2r = zero.clone(), zero.clone(), zero.clone(), zero.clone()
    nan_mis = torch.zeros((), dtype=torch.int64, device=out.device)
    inf_mis = nan_mis.clone()
    for i in range(0, o.numel(), CHUNK):
        oc = o[i:i + CHUNK].double()
        rc = r[i:i + CHUNK].double()
        on, rn = torch.isnan(oc), torch.isnan(rc)
        nan_mis += (on != rn).sum()
        either_inf = torch.isinf(oc) | torch.isinf(rc)
        inf_mis += (either_inf & (oc != rc) & ~(on | rn)).sum()
        rfin = torch.isfinite(rc)
        both = rfin & torch.isfinite(oc)
        d = torch.where(both, oc - rc, 0.0)
        rf = torch.where(rfin, rc, 0.0)
        if d.numel():
            max_err = torch.maximum(max_err, d.abs().max())
            max_ref = torch.maximum(max_ref, rf.abs().max())
        l2e += (d * d).sum()
        l2r += (rf * rf).sum()
    max_err, max_ref = max_err.item(), max_ref.item()
    l2e, l2r = math.sqrt(l2e.item()), math.sqrt(l2r.item())
    nan_mis, inf_mis = int(nan_mis.item()), int(inf_mis.item())
    bound = atol + rtol * max_ref
    ok = nan_mis == 0 and inf_mis == 0 and max_err <= bound and l2e <= rtol * l2r
    res.update({"pass": bool(ok), "max_abs_err": max_err, "max_ref": max_ref, "bound": bound,
                "l2_err": l2e, "l2_ref": l2r, "rel_l2": (l2e / l2r) if l2r > 0 else None,
                "nan_mismatch": nan_mis, "inf_mismatch": inf_mis, "rtol": rtol, "atol": atol})
    return res


# ---------------------------------------------------------------------------------------
# The program under test: a CUDA entry through ctypes, or the PyTorch twin


class NativeEntry:
    """An extern "C" entry of a built library, called through ctypes with tensors'
    data_ptr(), scalars typed per the C signature and the stream's handle."""

    def __init__(self, so_path, entry):
        self.entry = entry
        self.lib = ctypes.CDLL(os.path.abspath(so_path))
        self.fn = getattr(self.lib, entry.name)
        argtypes = []
        for p in entry.params:
            argtypes.append(ctypes.c_void_p if p.kind != "scalar" else getattr(ctypes, p.ctypes_name))
        self.fn.argtypes = argtypes
        self.fn.restype = ctypes.c_int if entry.ret != "void" else None
        self._last = getattr(self.lib, "kbench_last_error", None)
        self._string = getattr(self.lib, "kbench_error_string", None)
        if self._last is not None:
            self._last.restype = ctypes.c_int
            self._last.argtypes = []
        if self._string is not None:
            self._string.restype = ctypes.c_char_p
            self._string.argtypes = [ctypes.c_int]

    def error_text(self, code):
        name = self._string(code).decode() if self._string is not None else "?"
        return "%d (%s)" % (code, name)

    def last_error(self):
        """The library's CUDA runtime's last error (clears it); 0 when unknown."""
        return self._last() if self._last is not None else 0

    def bind(self, tensors, scalars, stream_handle):
        """A no-argument callable that calls the entry on these buffers (dict name ->
        tensor), scalars (dict name -> value) and stream; it returns the entry's result
        (a cudaError_t as int, or None)."""
        args = []
        for p in self.entry.params:
            if p.kind == "pointer":
                args.append(tensors[p.name].data_ptr())
            elif p.kind == "stream":
                args.append(stream_handle)
            else:
                v = scalars[p.name]
                ct = getattr(ctypes, p.ctypes_name)
                if not p.is_float and ct(v).value != v and p.ctypes_name not in ("c_bool",):
                    raise VariantError("scalar %s=%r does not fit C type %s" % (p.name, v, p.ctype))
                args.append(v)
        fn = self.fn
        return lambda: fn(*args)


def load_twin(path):
    """Imports the PyTorch twin `path` as a fresh module."""
    name = "kbench_twin_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not callable(getattr(mod, "forward", None)):
        raise VariantError("%s defines no forward()" % path)
    return mod


def as_tuple(result):
    if isinstance(result, torch.Tensor):
        return (result,)
    return tuple(result)


class Problem:
    """One problem's entry, twin and device, with helpers to draw a binding's inputs and
    call the twin on them."""

    def __init__(self, entry, twin, dev):
        self.entry, self.twin, self.dev = entry, twin, dev
        self.inputs = [b for b in entry.buffers if b.role in ("in", "inout")]
        self.outputs = [b for b in entry.buffers if b.role in ("out", "inout")]

    def draw_inputs(self, binding, seed):
        gen = torch.Generator(device=self.dev.torch_device)
        gen.manual_seed(seed)
        env = binding.values
        return {b.name: draw(b, b.shape(env), b.init(env), gen, self.dev) for b in self.inputs}

    def call_twin(self, fn, inputs, binding):
        """Calls `fn` (the twin's forward, or a compiled one) the twin's way: in/inout
        tensors positionally in parameter order, scalars as keywords."""
        return fn(*[inputs[b.name] for b in self.inputs], **binding.values)

    def twin_outputs(self, inputs, binding):
        outs = as_tuple(self.call_twin(self.twin.forward, inputs, binding))
        if len(outs) != len(self.outputs):
            raise VariantError("the twin returned %d tensors; the entry has %d out/inout "
                               "buffers" % (len(outs), len(self.outputs)))
        return outs

    def nbytes(self, binding):
        """Bytes a perfect program moves: in/inout read once, out/inout written once."""
        total = 0
        for b in self.entry.buffers:
            n = math.prod(b.shape(binding.values)) * b.elem_bytes
            total += n * ((b.role in ("in", "inout")) + (b.role in ("out", "inout")))
        return total


def run_native(prob, native, inputs, saved, binding, variant, stream):
    """Calls a native entry once on `inputs` (inout buffers restored from `saved`, out
    buffers poisoned) and returns its output tensors by buffer name. The caller holds
    the stream context of `stream`, so the poisoning is ordered before the call.
    Raises VariantError for an error the process survives, Poisoned for a sticky one."""
    dev = prob.dev
    tensors = dict(inputs)
    for b in prob.entry.buffers:
        if b.role == "out":
            tensors[b.name] = poison(torch.empty(b.shape(binding.values), dtype=torch_dtype(b),
                                                 device=dev.torch_device))
        elif b.role == "inout":
            tensors[b.name] = saved[b.name].clone()
    call = native.bind(tensors, binding.values, Device.stream_handle(stream))
    native.last_error()                 # clear a stale error of an earlier call
    try:
        ret = call()
        last = native.last_error()
        dev.sync()
    except Exception as exc:            # noqa: BLE001 - any failure here is recorded
        if not dev.healthy():
            raise Poisoned(variant, short_error(exc))
        raise VariantError(short_error(exc))
    if ret:
        raise VariantError("the entry returned cudaError %s" % native.error_text(ret))
    if last:
        raise VariantError("CUDA error after the call: %s" % native.error_text(last))
    return tensors


def verify_outputs(prob, tensors, ref_outs, inputs, saved):
    """Compares every out/inout buffer with the twin's results and checks that every in
    buffer is bit-identical to its saved copy. Returns (pass, details)."""
    details = {"buffers": {}}
    ok = True
    for b, ref in zip(prob.outputs, ref_outs):
        c = compare(tensors[b.name], ref, prob.entry.tolerance(b))
        details["buffers"][b.name] = c
        ok = ok and c["pass"]
    changed = [b.name for b in prob.entry.buffers if b.role == "in"
               and not torch.equal(as_bytes(inputs[b.name]), as_bytes(saved[b.name]))]
    if changed:
        details["in_modified"] = changed
        ok = False
    details["pass"] = ok
    return ok, details


# ---------------------------------------------------------------------------------------
# Calibration: the two ceilings, measured once per run


def _event_median_ms(dev, fn, reps, warmup=2):
    for _ in range(warmup):
        fn()
    dev.sync()
    samples = []
    for _ in range(reps):
        if dev.is_cuda:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            samples.append(s.elapsed_time(e))
        else:
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
    return percentile(sorted(samples), 50)


def calibrate(dev, copy_bytes=2 << 30, matmul_n=8192):
    """The device's facts and its two measured ceilings: device-to-device copy bandwidth
    (bytes read plus bytes written, over a `copy_bytes` copy) and dense matrix rates
    (float32 with TF32 off, and bfloat16) on random data, `matmul_n`-cubed products."""
    info = {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
            "tf32_cudnn": torch.backends.cudnn.allow_tf32}
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:                   # noqa: BLE001 - optional
        info["triton"] = None
    if dev.is_cuda:
        p = torch.cuda.get_device_properties(dev.torch_device)
        info.update({"gpu": p.name, "sm_count": p.multi_processor_count,
                     "l2_bytes": getattr(p, "L2_cache_size", None),
                     "memory_bytes": p.total_memory,
                     "capability": "%d.%d" % (p.major, p.minor),
                     "cudnn": torch.backends.cudnn.version(),
                     "flush_bytes": dev.flush_bytes, "stream_kind": dev.stream_kind})
    else:
        info.update({"gpu": "cpu (test device)", "sm_count": os.cpu_count()})
        copy_bytes, matmul_n = min(copy_bytes, 64 << 20), min(matmul_n, 512)
    gen = torch.Generator(device=dev.torch_device)
    gen.manual_seed(1234)
    src = torch.randn(copy_bytes // 4, generator=gen, device=dev.torch_device)
    dst = torch.empty_like(src)
    ms = _event_median_ms(dev, lambda: dst.copy_(src), reps=20, warmup=3)
    info["copy_GBps"] = 2 * copy_bytes / (ms * 1e-3) / 1e9
    src = dst = None
    for dtype, key in ((torch.float32, "fp32_tflops"), (torch.bfloat16, "bf16_tflops")):
        a = torch.randn(matmul_n, matmul_n, generator=gen, device=dev.torch_device).to(dtype)
        b = torch.randn(matmul_n, matmul_n, generator=gen, device=dev.torch_device).to(dtype)
        ms = _event_median_ms(dev, lambda: torch.mm(a, b), reps=10, warmup=2)
        info[key] = 2 * matmul_n ** 3 / (ms * 1e-3) / 1e12
        a = b = None
    info["calibration_sizes"] = {"copy_bytes": copy_bytes, "matmul_n": matmul_n}
    dev.free()
    return info


def flop_rate_for(entry, calib):
    """Which measured matrix rate bounds this entry: bfloat16's when all its floating
    buffers are half or bfloat16, float32's (TF32 off) otherwise."""
    floats = {b.type for b in entry.buffers if b.type_kind == "float"}
    if floats and floats <= {"half", "bfloat16"}:
        return "bf16", calib.get("bf16_tflops")
    return "fp32", calib.get("fp32_tflops")


def count_flops(prob, inputs, binding):
    """The twin's FLOPs by torch.utils.flop_counter (matrix products, convolutions,
    attention; pointwise and reductions count zero there)."""
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as fc:
        prob.call_twin(prob.twin.forward, inputs, binding)
    return int(fc.get_total_flops())


# ---------------------------------------------------------------------------------------
# One problem


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


COMPILE_MODES = {"compile": None, "max-autotune": "max-autotune-no-cudagraphs"}


def run_problem(job, dev, emit):
    """Verifies and times one problem. `job` (a dict from the driver) names the .cu and
    .py files, the entry, the built libraries of the native variants (`native`: name ->
    .so path), the PyTorch variants (`torch_variants`), variants to skip with the reason
    (`skip`), the seeds, the calibration and the timing settings. `emit(dict)` reports
    progress: {"event": "stage", "variant": ..., "stage": ..., "binding": ...}.

    Returns the measured part of the problem's record: verify, timing, compile, floor,
    fraction_of_floor, error. Raises Poisoned after a sticky CUDA error."""
    rec = {"verify": {}, "timing": {}, "compile": {}, "floor": None, "fraction_of_floor": {}}
    for v, why in (job.get("skip") or {}).items():
        rec["verify"][v] = {"pass": False, "error": why}
        rec["timing"][v] = {"error": why}

    entry = contract.parse_file(job["cu"])[job["entry"]]
    try:
        twin = load_twin(job["py"])
    except Exception as exc:            # noqa: BLE001
        rec["error"] = "cannot load the twin: " + short_error(exc)
        rec["traceback"] = traceback.format_exc()[-2000:]
        return rec
    prob = Problem(entry, twin, dev)
    stream = dev.stream_for(entry)
    rec["stream"] = "dedicated" if entry.has_stream else "legacy-default"

    natives = {}
    for v, so in (job.get("native") or {}).items():
        if v in rec["verify"]:
            continue
        try:
            natives[v] = NativeEntry(so, entry)
        except Exception as exc:        # noqa: BLE001
            rec["verify"][v] = {"pass": False, "error": "cannot load: " + short_error(exc)}
            rec["timing"][v] = {"error": "cannot load"}

    run = _Run(job, dev, emit, rec, prob, natives, stream)
    # Every tensor operation of the problem (drawing, poisoning, restoring, flushing, the
    # twin, compiled code) is queued on the problem's stream, the one the entry gets.
    with dev.stream_context(stream):
        if run.verify():
            run.time_all()
    run.summarize()
    return rec


class _Run:
    """The phases of one problem: verify(), time_all(), summarize(); results in `rec`."""

    def __init__(self, job, dev, emit, rec, prob, natives, stream):
        self.job, self.dev, self.emit, self.rec = job, dev, emit, rec
        self.prob, self.natives, self.stream = prob, natives, stream
        self.settings = Settings(job.get("settings"))
        self.calib = job.get("calibration") or {}
        self.seeds = job["seeds"]
        self.call_failed = {}           # variant -> error of a call that did not complete
        self.per_floor = []

    def stage(self, variant, what, binding=None):
        self.emit({"event": "stage", "variant": variant, "stage": what, "binding": binding})

    # 1. Verification of the native variants on every tune and check binding and seed.
    def verify(self):
        """Returns False when the twin itself fails (nothing can be verified or timed)."""
        prob, dev, rec = self.prob, self.dev, self.rec
        if not self.natives:
            return True                 # nothing to verify (the twin is checked by timing it)
        for v in self.natives:
            rec["verify"][v] = {"pass": True, "runs": []}
        for binding in prob.entry.tunes + prob.entry.checks:
            for seed in self.seeds:
                self.stage("twin", "reference", binding.text)
                try:
                    inputs = prob.draw_inputs(binding, seed)
                    saved = {n: t.clone() for n, t in inputs.items()}
                    ref_outs = prob.twin_outputs(inputs, binding)
                    dev.sync()
                except Exception as exc:    # noqa: BLE001
                    if not dev.healthy():
                        raise Poisoned("twin", short_error(exc))
                    rec["error"] = "the twin failed at %s, seed %d: %s" % (binding.text, seed, short_error(exc))
                    rec["traceback"] = traceback.format_exc()[-2000:]
                    return False
                modified = [n for n in inputs if not torch.equal(as_bytes(inputs[n]), as_bytes(saved[n]))]
                if modified:
                    rec.setdefault("notes", []).append("the twin modified its inputs %s" % modified)
                    for n in modified:
                        inputs[n].copy_(saved[n])
                for v, native in self.natives.items():
                    if v not in self.call_failed:
                        self.verify_one(v, native, inputs, saved, ref_outs, binding, seed)
                del inputs, saved, ref_outs
                dev.free()
        return True

    def verify_one(self, v, native, inputs, saved, ref_outs, binding, seed):
        prob = self.prob
        self.stage(v, "verify", binding.text)
        run = {"binding": binding.text, "kind": binding.kind, "seed": seed}
        tensors = None
        try:
            tensors = run_native(prob, native, inputs, saved, binding, v, self.stream)
            ok, details = verify_outputs(prob, tensors, ref_outs, inputs, saved)
            run.update(details)
        except VariantError as exc:
            ok = False
            run.update({"pass": False, "error": str(exc)})
            self.call_failed[v] = str(exc)
        for b in prob.entry.buffers:    # undo a variant that wrote an in buffer
            if b.role == "in" and not torch.equal(as_bytes(inputs[b.name]), as_bytes(saved[b.name])):
                inputs[b.name].copy_(saved[b.name])
        self.rec["verify"][v]["runs"].append(run)
        if not ok:
            self.rec["verify"][v]["pass"] = False
        del tensors

    # 2. Floors and timing at each tune binding, on the first seed's inputs.
    def time_all(self):
        prob, dev = self.prob, self.dev
        for binding in prob.entry.tunes:
            inputs = prob.draw_inputs(binding, self.seeds[0])
            saved = {b.name: inputs[b.name].clone() for b in prob.entry.buffers if b.role == "inout"}
            ref_outs = prob.twin_outputs(inputs, binding)
            self.floor(inputs, binding)

            def restore():
                for n, t in saved.items():
                    inputs[n].copy_(t)
            prepare = restore if saved else None

            for v, native in self.natives.items():
                self.time_native(v, native, inputs, binding, prepare)
            if "eager" in self.job.get("torch_variants", []):
                self.time_twin("eager", self.prob.twin.forward, inputs, binding, prepare)
            for v in self.job.get("torch_variants", []):
                if v in COMPILE_MODES and v not in (self.job.get("skip") or {}):
                    self.time_compiled(v, inputs, ref_outs, binding, prepare)
            inputs = saved = ref_outs = prepare = None
            dev.free()

    def floor(self, inputs, binding):
        prob = self.prob
        self.stage("twin", "flops", binding.text)
        try:
            flops = count_flops(prob, inputs, binding)
        except Exception as exc:        # noqa: BLE001
            flops, self.rec["flops_error"] = None, short_error(exc)
        self.dev.sync()
        nbytes = prob.nbytes(binding)
        rate_kind, tflops = flop_rate_for(prob.entry, self.calib)
        bw = self.calib.get("copy_GBps")
        byte_ms = nbytes / (bw * 1e9) * 1e3 if bw else None
        flop_ms = flops / (tflops * 1e12) * 1e3 if (flops is not None and tflops) else None
        floor_ms = max([x for x in (byte_ms, flop_ms) if x is not None], default=None)
        self.per_floor.append({"binding": binding.text, "bytes": nbytes, "flops": flops,
                               "byte_ms": byte_ms, "flop_ms": flop_ms, "floor_ms": floor_ms,
                               "flop_rate": rate_kind})

    def record(self, variant, binding, result):
        slot = self.rec["timing"].setdefault(variant, {})
        slot.setdefault("per_binding", []).append(dict(result, binding=binding.text))

    def failed(self, variant, exc, what):
        """Records a failure of `variant`; raises Poisoned if the context is gone."""
        if not self.dev.healthy():
            raise Poisoned(variant, short_error(exc))
        self.rec["timing"][variant] = {"error": "%s: %s" % (what, short_error(exc))}

    def time_native(self, v, native, inputs, binding, prepare):
        prob, dev = self.prob, self.dev
        if v in self.call_failed:
            self.rec["timing"][v] = {"error": "not timed: the call failed in verification"}
            return
        if "error" in self.rec["timing"].get(v, {}):
            return
        self.stage(v, "time", binding.text)
        tensors = dict(inputs)
        for b in prob.entry.buffers:
            if b.role == "out":
                tensors[b.name] = torch.empty(b.shape(binding.values), dtype=torch_dtype(b),
                                              device=dev.torch_device)
        try:
            call = native.bind(tensors, binding.values, Device.stream_handle(self.stream))
            self.record(v, binding, time_call(dev, self.stream, call, prepare, self.settings))
        except Exception as exc:        # noqa: BLE001
            self.failed(v, exc, "timing failed")

    def time_twin(self, v, fn, inputs, binding, prepare):
        if "error" in self.rec["timing"].get(v, {}):
            return
        self.stage(v, "time", binding.text)
        try:
            self.record(v, binding, time_call(self.dev, self.stream,
                                              lambda: self.prob.call_twin(fn, inputs, binding),
                                              prepare, self.settings))
        except Exception as exc:        # noqa: BLE001
            self.failed(v, exc, "timing failed")

    def time_compiled(self, v, inputs, ref_outs, binding, prepare):
        """torch.compile of the twin's forward: the first call compiles (its wall time is
        recorded, never timed), its outputs are checked against the eager twin's on the
        same inputs, then it is timed like everything else."""
        prob, dev, rec = self.prob, self.dev, self.rec
        if "error" in rec["timing"].get(v, {}):
            return
        self.stage(v, "compile", binding.text)
        info = rec["compile"].setdefault(v, {"mode": COMPILE_MODES[v] or "default", "per_binding": []})
        compiled = None
        try:
            torch._dynamo.reset()
            compiled = torch.compile(prob.twin.forward, mode=COMPILE_MODES[v])
            t0 = time.monotonic()
            outs = as_tuple(prob.call_twin(compiled, inputs, binding))
            dev.sync()
            info["per_binding"].append({"binding": binding.text,
                                        "compile_s": round(time.monotonic() - t0, 3)})
        except Exception as exc:        # noqa: BLE001
            info["error"] = short_error(exc, 1500)
            self.failed(v, exc, "torch.compile failed")
            torch._dynamo.reset()
            return
        vrec = rec["verify"].setdefault(v, {"pass": True, "runs": []})
        run = {"binding": binding.text, "kind": "tune", "seed": self.seeds[0], "buffers": {}, "pass": True}
        if len(outs) != len(prob.outputs):
            run.update({"pass": False, "error": "returned %d tensors" % len(outs)})
        for b, o, r in zip(prob.outputs, outs, ref_outs):
            c = compare(o, r, prob.entry.tolerance(b))
            run["buffers"][b.name] = c
            run["pass"] = run["pass"] and c["pass"]
        vrec["runs"].append(run)
        vrec["pass"] = vrec["pass"] and run["pass"]
        del outs
        self.time_twin(v, compiled, inputs, binding, prepare)
        compiled = None
        torch._dynamo.reset()

    # 3. Summaries: geometric means over the tune bindings, the floor and its fractions.
    def summarize(self):
        rec = self.rec
        for slot in rec["timing"].values():
            pb = slot.get("per_binding")
            if not pb or "error" in slot:
                continue
            slot["ms"] = geomean([r["median_ms"] for r in pb])
            slot["p10_ms"] = geomean([r["p10_ms"] for r in pb])
            slot["p90_ms"] = geomean([r["p90_ms"] for r in pb])
        if not self.per_floor:
            return
        pf = self.per_floor
        rec["floor"] = {"per_binding": pf, "floor_ms": geomean([f["floor_ms"] for f in pf]),
                        "bytes": pf[0]["bytes"], "flops": pf[0]["flops"],
                        "flop_rate": pf[0]["flop_rate"],
                        "note": "bytes: in/inout read once + out/inout written once; FLOPs by "
                                "torch.utils.flop_counter: matmul/conv/attention only, "
                                "pointwise and reductions not counted"}
        fl = rec["floor"]["floor_ms"]
        for v, slot in rec["timing"].items():
            if fl and slot.get("ms"):
                rec["fraction_of_floor"][v] = fl / slot["ms"]
