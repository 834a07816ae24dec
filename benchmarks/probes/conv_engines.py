#!/usr/bin/env python3
"""Probe: which cuDNN engines eager reaches for the convolutions kfuse loses on, and what
deterministic alternatives cost (issue #10). Run on the GPU host:

    python3 benchmarks/probes/conv_engines.py

For each shape: eager (cudnn.deterministic off and on, benchmark off and on), the kernels
the profiler sees, and for the stride-2 transposed ones two rewrites as forward convolutions
(deterministic in every cuDNN algorithm): the zero-inserted input, and the 2^d phases
(one forward convolution per output phase with its sub-kernel, times summed).
FP32, TF32 off. Times are medians of CUDA-event timings over 50 calls after 10 warm-ups.
"""
import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

SHAPES = [
    # name, transposed, dims, x shape, w shape, stride, padding, output padding
    ("level2/020", True, 3, (16, 32, 16, 32, 32), (32, 64, 3, 3, 3), 2, 1, 1),
    ("level2/050", True, 3, (128, 3, 16, 32, 32), (3, 16, 3, 3, 3), 2, 1, 0),
    ("level2/074", True, 3, (16, 16, 16, 32, 32), (16, 32, 3, 3, 3), 2, 1, 1),
    ("level2/044", True, 2, (16, 64, 128, 128), (64, 128, 3, 3), 2, 1, 1),
    ("level2/079", False, 3, (128, 3, 16, 32, 32), (16, 3, 3, 3, 3), 1, 0, 0),
    ("level2/024", False, 3, (128, 3, 24, 32, 32), (24, 3, 3, 3, 3), 1, 0, 0),
]


def timeit(fn, reps=50):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]


def kernels(fn):
    from torch.profiler import profile, ProfilerActivity
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and e.name not in names:
            names.append(e.name)
    return [n[:110] for n in names]


def conv(tr, d):
    if tr:
        return [None, F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][d]
    return [None, F.conv1d, F.conv2d, F.conv3d][d]


def main():
    for name, tr, d, xs, ws, s, p, op in SHAPES:
        x = torch.randn(xs, device="cuda")
        w = torch.randn(ws, device="cuda")
        f = conv(tr, d)
        kw = dict(stride=s, padding=p)
        if tr:
            kw["output_padding"] = op
        run = lambda: f(x, w, **kw)
        print(f"== {name} {'transposed ' if tr else ''}conv{d}d x{list(xs)} w{list(ws)} s{s} p{p} op{op}")
        for det in (False, True):
            for bench in (False, True):
                torch.backends.cudnn.deterministic = det
                torch.backends.cudnn.benchmark = bench
                ms = timeit(run)
                print(f"  eager det={int(det)} benchmark={int(bench)}: {ms:.3f} ms")
                if not bench:
                    for k in kernels(run):
                        print(f"      {k}")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        if not tr or s != 2:
            continue
        ref = run()
        # forward convolution over the zero-inserted input, kernel flipped, channels swapped
        k = ws[2]
        wf = w.flip(list(range(2, 2 + d))).transpose(0, 1).contiguous()
        dil_shape = list(xs[:2]) + [(n - 1) * s + 1 for n in xs[2:]]
        xd = torch.zeros(dil_shape, device="cuda")
        sl = (slice(None), slice(None)) + tuple(slice(None, None, s) for _ in range(d))
        xd[sl] = x
        pad = k - 1 - p
        fwd = conv(False, d)
        big = lambda: fwd(F.pad(xd, [pad, pad + op] * d), wf)
        got = big()
        print(f"  zero-inserted forward: {timeit(big):.3f} ms, max diff {float((got - ref).abs().max()):.2e}")
        # phases: output o = i*s - p + t (t the tap); for phase r (o = q*s + r), taps t = r + p - i*s
        times = 0.0
        for ph in range(s ** d):
            r = [(ph // (s ** j)) % s for j in range(d)]
            sub = wf
            for j in range(d):
                taps = [t for t in range(k) if (t - (k - 1 - p) + r[j]) % s == 0]
                sub = sub.index_select(2 + j, torch.tensor(taps, device="cuda"))
            sub = sub.contiguous()
            xx = F.pad(x, [1, 1] * d)
            one = lambda: fwd(xx, sub)
            times += timeit(one)
        print(f"  phases (2^{d} forward convolutions, times summed): {times:.3f} ms")


if __name__ == "__main__":
    main()
