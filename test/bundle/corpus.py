#!/usr/bin/env python3
"""Bundles every program of the corpus and checks each bundle on the CPU:
  - kfuse --bundle succeeds;
  - bundle.c compiles as C with -Wall -Wextra -Werror;
  - kfuse-runner --list reads it (the ABI matches, the extents and assumes evaluate);
  - with --nvcc N, the reference's call shim of every N-th bundle compiles with nvcc.
Prints failures and `N passed, M failed`."""
import argparse, concurrent.futures as cf, glob, os, subprocess, sys, tempfile


def check(a, i, path, tmp):
    d = os.path.join(tmp, f"b{i}")
    r = subprocess.run([a.kfuse, "--bundle", d, path], capture_output=True, text=True)
    if r.returncode:
        return f"{path}: kfuse --bundle exited {r.returncode}: {r.stderr[-500:]}"
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared", "-I", d,
                        os.path.join(d, "bundle.c"), "-o", os.path.join(d, "bundle.so")],
                       capture_output=True, text=True)
    if r.returncode:
        return f"{path}: bundle.c does not compile: {r.stderr[-1500:]}"
    r = subprocess.run([a.runner, "--list", d], capture_output=True, text=True)
    if r.returncode or "entry " not in r.stdout:
        return f"{path}: kfuse-runner --list failed ({r.returncode}): {r.stderr[-500:]}"
    if a.nvcc and i % a.nvcc == 0:
        r = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-Xcompiler", "-fPIC", os.path.join(d, "ref.shim.cu"),
                            "-o", os.path.join(d, "ref.o")], capture_output=True, text=True)
        if r.returncode:
            return f"{path}: ref.shim.cu does not compile: {r.stderr[-1500:]}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kfuse", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--nvcc", type=int, default=0, help="compile the shim of every N-th bundle")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.corpus, "*", "*.cu")))
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        res = list(ex.map(lambda p: check(a, p[0], p[1], tmp), enumerate(files)))
    bad = [r for r in res if r]
    for r in bad:
        print("FAIL:", r)
    print(f"{len(files) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
