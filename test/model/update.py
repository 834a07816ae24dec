#!/usr/bin/env python3
"""Regenerates the CHECK lines of the model tests from kfuse's current output, as
LLVM's update_test_checks.py does. Run it after an intended change of the model, then
read the diff: every changed line is a change of behaviour to justify.

  python3 test/model/update.py build/driver/kfuse
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "benchmarks", "corpus")
KEEP = re.compile(r"^  (steps|dataflow|lifted|opaque|thread index|load|store|atomic|loop|tune|check|assume|tol)"
                  r"|^\s+#\d+ |^    \S+.*: written by|^  param \w+: (in|out|inout) ")


def update(kfuse, test):
    lines = open(test).read().splitlines()
    head = [l for l in lines if not l.startswith("; CHECK")]
    src = re.search(r"%corpus/(\S+\.cu)", "\n".join(head)).group(1)
    out = subprocess.run([kfuse, os.path.join(CORPUS, src), "--emit=model", "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    checks, in_body = [], False
    for l in out.splitlines():
        if l.startswith("  body "):
            in_body = True
            continue
        if in_body:
            in_body = l != "}"
            continue
        if l.startswith("entry ") or l.startswith("kernel "):
            checks.append("CHECK-LABEL: " + l)
        elif KEEP.match(l):
            checks.append("CHECK: " + l)
    checks = ["; " + c.replace("[[", "{{\\[\\[}}") for c in checks]
    open(test, "w").write("\n".join(head + checks) + "\n")


if __name__ == "__main__":
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".test") and "%corpus/" in open(os.path.join(HERE, name)).read() \
                and "--emit=model " in open(os.path.join(HERE, name)).read():
            update(sys.argv[1], os.path.join(HERE, name))
