#!/usr/bin/env python3
"""Runs kfuse over every program of the corpus and checks, per file:

  identity   with no pass, the output equals the input byte for byte;
  determinism  two runs give the same bytes (for --emit=model too);
  compiles   the output, and the input with every lifted kernel re-printed from the
             model (--emit=lifted), compile with `nvcc -arch=sm_90 -c`;
  transformed  the passes' first variant (--emit=transformed) is the same in two runs,
             and, where the passes changed the program, compiles with nvcc.

Prints one line per failure and a summary line `N passed, M failed`; exits 1 on any
failure."""
import argparse
import concurrent.futures as cf
import glob
import os
import subprocess
import sys
import tempfile


def run(cmd):
    return subprocess.run(cmd, capture_output=True)


def check(kfuse, path, mode, tmp):
    base = os.path.join(tmp, path.replace("/", "_"))
    fails = []
    if mode == "identity":
        for n in (1, 2):
            r = run([kfuse, path, "-o", f"{base}.{n}.cu"])
            if r.returncode:
                return [f"{path}: kfuse exited {r.returncode}: {r.stderr.decode()[-400:]}"]
        src = open(path, "rb").read()
        if open(f"{base}.1.cu", "rb").read() != src:
            fails.append(f"{path}: output differs from the input")
        if open(f"{base}.2.cu", "rb").read() != open(f"{base}.1.cu", "rb").read():
            fails.append(f"{path}: two runs differ")
        m1 = run([kfuse, path, "--emit=model", "-o", "-"]).stdout
        m2 = run([kfuse, path, "--emit=model", "-o", "-"]).stdout
        if m1 != m2 or not m1:
            fails.append(f"{path}: --emit=model is empty or not deterministic")
    elif mode == "lifted":
        r = run([kfuse, path, "--emit=lifted", "-o", f"{base}.lifted.cu"])
        if r.returncode:
            return [f"{path}: kfuse --emit=lifted exited {r.returncode}: {r.stderr.decode()[-400:]}"]
        for f in (path, f"{base}.lifted.cu"):
            c = run(["nvcc", "-arch=sm_90", "-c", f, "-o", os.devnull])
            if c.returncode:
                fails.append(f"{path}: nvcc rejects {'the output' if f == path else 'the re-printed kernels'}:\n"
                             + c.stderr.decode()[-1500:])
    elif mode == "transformed":
        for n in (1, 2):
            r = run([kfuse, path, "--emit=transformed", "-o", f"{base}.t{n}.cu"])
            if r.returncode:
                return [f"{path}: kfuse --emit=transformed exited {r.returncode}: {r.stderr.decode()[-400:]}"]
        out = open(f"{base}.t1.cu", "rb").read()
        if open(f"{base}.t2.cu", "rb").read() != out:
            fails.append(f"{path}: two runs of the passes differ")
        if out != open(path, "rb").read():
            c = run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", f"{base}.t1.cu", "-o", os.devnull])
            if c.returncode:
                fails.append(f"{path}: nvcc rejects the transformed program:\n" + c.stderr.decode()[-1500:])
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kfuse", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--mode", choices=["identity", "lifted", "transformed"], required=True)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.corpus, "*", "*.cu")))
    if not files:
        print(f"no corpus files under {a.corpus}")
        return 1
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(a.j) as ex:
        results = list(ex.map(lambda f: check(a.kfuse, f, a.mode, tmp), files))
    failed = [f for f in results if f]
    for f in failed:
        for line in f:
            print("FAIL:", line)
    print(f"{len(files) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
