#!/usr/bin/env python3
"""Counts lifted and opaque kernels over the corpus from --emit=model-json; prints
UNEXPLAINED for an opaque kernel without a reason or line, and ERROR for a file kfuse
rejects."""
import glob, json, os, subprocess, sys

kfuse, corpus = sys.argv[1], sys.argv[2]
total = lifted = opaque = 0
for f in sorted(glob.glob(os.path.join(corpus, "*", "*.cu"))):
    r = subprocess.run([kfuse, f, "--emit=model-json", "-o", "-"], capture_output=True, text=True)
    if r.returncode:
        print("ERROR", f, r.stderr[-300:])
        continue
    for k in json.loads(r.stdout)["kernels"]:
        total += 1
        if k["lifted"]:
            lifted += 1
        elif k.get("opaque_reason") and k.get("opaque_line"):
            opaque += 1
            print(f"opaque {os.path.relpath(f, corpus)}:{k['opaque_line']}: {k['name']}: {k['opaque_reason']}")
        else:
            print("UNEXPLAINED", f, k["name"])
print(f"kernels: {total}, lifted: {lifted}, opaque with a reason: {opaque}")
