#!/usr/bin/env python3
"""Stands in for nvcc in the benchmark's CPU tests: builds the first .cu argument as
host C++ into the -o shared library, with stubs for the shim's kbench_* functions.
Ignores every other flag. Not for real use."""
import os
import subprocess
import sys
import tempfile

args = sys.argv[1:]
if "--version" in args:
    print("fake_nvcc: Cuda compilation tools, release 0.0 (test stand-in)")
    sys.exit(0)
out = args[args.index("-o") + 1]
sources = [a for a in args if a.endswith(".cu") and not a.endswith("kbench_shim.cu")]
stub = ('extern "C" int kbench_last_error(void) { return 0; }\n'
        'extern "C" const char *kbench_error_string(int e) { (void)e; return "no error"; }\n')
with tempfile.TemporaryDirectory() as d:
    stub_path = os.path.join(d, "stub.cpp")
    with open(stub_path, "w") as f:
        f.write(stub)
    cmd = ["c++", "-O1", "-shared", "-fPIC", "-x", "c++", sources[0], stub_path, "-o", out]
    sys.exit(subprocess.run(cmd).returncode)
