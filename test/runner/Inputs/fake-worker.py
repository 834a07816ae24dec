#!/usr/bin/env python3
"""A stand-in for kfuse-runner's worker (runner/worker.h's protocol), for the tests of the
runner's own logic without a GPU: KFUSE_RUNNER_WORKER=this kfuse-runner DIR.

    this --child JOB DIR OUT VARIANT ENTRY SEEDS REPS FLAGS REP_BUDGET

It describes an H200 (the device job), verifies every variant but those named in
FAKE_FAIL (comma-separated variant names: `fail` with a planted reason), times them (the
reference 2 ms, a variant 1 ms), and compares them interleaved. A batch job (VARIANT
"0,3,5") writes each variant's result file (DIR/logs/STEM.ENTRY.verify.out) and stops at the
first variant that fails, as the real worker does; with FAKE_CRASH_BATCH=1 a batch job dies
of SIGSEGV instead. Each job is appended to DIR/calls.txt ("verify v1", "verify ref,v1,v2",
"compare v1", "device"). With FAKE_RUN_S=S, each timed run is taken to last S seconds, and a
timing stops as the real worker's does (runner/timing.c): after REP_BUDGET seconds once it
has 10 runs or pairs; a job's calls.txt line then ends with "budget REP_BUDGET".
"""
import os
import signal
import sys


def manifest(d):
    variants, entry, bindings = [], None, []
    with open(os.path.join(d, "manifest.txt")) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "variant":
                variants.append((w[1], w[2][:-3] if w[2].endswith(".cu") else w[2]))
            elif w[0] == "entry":
                entry = w[1].split("(")[0]
            elif w[0] in ("tune", "check"):
                bindings.append(w[0] == "tune")
    return variants, entry, bindings


def budgeted(reps, budget, run_s):
    """The runs (pairs) a timing of reps takes within budget seconds, runs of run_s each:
    the real worker stops once it has 10 and the budget is spent."""
    if budget <= 0 or run_s <= 0:
        return reps
    n = 0
    while n < reps and not (n >= 10 and n * run_s >= budget):
        n += 1
    return n


def verify(out, name, bindings, reps, fail):
    out.write("at\tfake trial\n")
    out.flush()
    if name in fail:
        out.write("fail\tmismatch: 'out' planted by the fake worker [fake trial]\n")
        return False
    out.write("note\tverified (fake)\n")
    for g, tune in enumerate(bindings):
        if tune and reps > 0:
            ms = "2.0" if name == "ref" else "1.0"
            out.write("time\t%d\t%d\t%s\n" % (g, reps, " ".join([ms] * reps)))
    return True


def main():
    a = sys.argv[1:]
    if len(a) != 10 or a[0] != "--child":
        sys.exit("fake-worker: expected --child JOB DIR OUT VARIANT ENTRY SEEDS REPS FLAGS REP_BUDGET")
    job, d, out, which, entry_ix, _, reps = a[1], a[2], a[3], a[4], a[5], a[6], int(a[7])
    budget, run_s = float(a[9]), float(os.environ.get("FAKE_RUN_S", "0"))
    reps = budgeted(reps, budget, run_s)
    fail = set(filter(None, os.environ.get("FAKE_FAIL", "").split(",")))
    variants, entry, bindings = manifest(d)
    ids = [int(x) for x in which.split(",")]
    with open(os.path.join(d, "calls.txt"), "a") as calls:
        calls.write("%s %s%s\n" % (job, ",".join(variants[i][0] for i in ids) if job != "device" else "",
                                    " budget %g" % budget if run_s > 0 and job != "device" else ""))
    if job == "device":
        with open(out, "w") as f:
            for k, v in (("name", "NVIDIA H200"), ("sm_count", "132"), ("cc", "9 0"), ("driver", "fake"),
                         ("cuda_driver", "13.0"), ("runtime", "13.0"), ("l2_bytes", "62914560"),
                         ("memory_bytes", "150000000000"), ("pci_bus_id", "0000:00:06.0")):
                f.write("dev\t%s\t%s\n" % (k, v))
            f.write("done\t\n")
        return 0
    if job == "compare":
        with open(out, "w") as f:
            for g, tune in enumerate(bindings):
                if tune:
                    f.write("pair\t%d\t%d\t%s\t%s\n" % (g, reps, " ".join(["2.0"] * reps), " ".join(["1.0"] * reps)))
            f.write("done\t\n")
        return 0
    if len(ids) == 1:
        with open(out, "w") as f:
            if verify(f, variants[ids[0]][0], bindings, reps, fail):
                f.write("done\t\n")
        return 0
    files = [open(os.path.join(d, "logs", "%s.%s.verify.out" % (variants[i][1], entry)), "w") for i in ids]
    if os.environ.get("FAKE_CRASH_BATCH") == "1":
        for f in files:
            f.write("at\tfake trial\n")
            f.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    for i, f in zip(ids, files):
        if not verify(f, variants[i][0], bindings, reps, fail):
            return 0
    for f in files:
        f.write("note\tverified in a batch of %d sharing the reference's runs\n" % len(ids))
        f.write("done\t\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
