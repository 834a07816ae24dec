"""Building a .cu program into a shared library, cached by content hash (stdlib only).

    nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC file.cu kbench_shim.cu -o lib.so [-lcublas ...]

The library is named `<cache>/<hash>.so`, where the hash covers the source bytes, the
command line and the nvcc version, so a resumed run, or a second run over the same files,
builds nothing. A small shim is linked into every library: it shares the library's (static)
CUDA runtime, so the benchmark can read that runtime's last error after a call
(`kbench_last_error`), which PyTorch's runtime cannot see (a failed launch of a bad
configuration leaves no sticky error).
"""

import glob
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import threading
import time

import contract

BASE_FLAGS = ["-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC"]

SHIM_SOURCE = r"""// Linked into every library the benchmark builds (benchmarks/lib/build.py).
#include <cuda_runtime.h>
extern "C" int kbench_last_error(void) { return (int)cudaGetLastError(); }
extern "C" const char *kbench_error_string(int e) { return cudaGetErrorString((cudaError_t)e); }
"""

_nvcc_version_cache = {}


def nvcc_version(nvcc="nvcc"):
    """The last line of `nvcc --version` ("Build cuda_13.0.r13.0/compiler...") or None."""
    if nvcc not in _nvcc_version_cache:
        try:
            out = subprocess.run([nvcc, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout
            lines = [ln for ln in out.strip().split("\n") if ln.strip()]
            release = next((ln for ln in lines if "release" in ln), None)
            parts = [release] + ([lines[-1]] if lines and lines[-1] != release else [])
            _nvcc_version_cache[nvcc] = " / ".join(x for x in parts if x) or None
        except (OSError, subprocess.SubprocessError):
            _nvcc_version_cache[nvcc] = None
    return _nvcc_version_cache[nvcc]


def _python_nvidia_dirs():
    """Folders of the `nvidia` Python namespace package (pip's CUDA libraries, as shipped
    with PyTorch), found without importing anything."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    return list(spec.submodule_search_locations or []) if spec else []


def _find_library(name, header):
    """Where to find library `name` (e.g. "cudnn") and its header: a list of extra nvcc
    flags (-I, -L, -l, rpath). The CUDA toolkit's own libraries (cublas, cublasLt) need
    only -l; cuDNN is looked for in the system folders, then in pip's nvidia/ packages."""
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    system_headers = ["/usr/include", "/usr/include/x86_64-linux-gnu",
                      os.path.join(cuda_home, "include")]
    if any(os.path.exists(os.path.join(d, header)) for d in system_headers):
        return ["-l" + name]
    for base in _python_nvidia_dirs():
        for inc in glob.glob(os.path.join(base, "*", "include", header)):
            libdir = os.path.join(os.path.dirname(os.path.dirname(inc)), "lib")
            libs = sorted(glob.glob(os.path.join(libdir, "lib%s.so*" % name)))
            if not libs:
                continue
            plain = os.path.join(libdir, "lib%s.so" % name)
            # pip wheels often ship only libX.so.N, which -lX cannot find: name the file.
            lib_flag = "-l" + name if os.path.exists(plain) else "-l:" + os.path.basename(libs[0])
            return ["-I" + os.path.dirname(inc), "-L" + libdir, lib_flag,
                    "-Xlinker", "-rpath," + libdir]
    return ["-l" + name]


_HEADERS = {"cublas": "cublas_v2.h", "cublasLt": "cublasLt.h", "cudnn": "cudnn.h"}


def link_flags(source_text):
    """The -l (and -I/-L) flags a source needs, by the library headers it includes."""
    flags = []
    for lib in contract.needed_libraries(source_text):
        flags += _find_library(lib, _HEADERS[lib])
    return flags


_shim_lock = threading.Lock()


def write_shim(cache_dir):
    """Writes the shim source into the cache folder (once; thread-safe); returns its path."""
    shim = os.path.join(cache_dir, "kbench_shim.cu")
    with _shim_lock:
        current = None
        if os.path.exists(shim):
            with open(shim) as f:
                current = f.read()
        if current != SHIM_SOURCE:
            tmp = "%s.%d.tmp" % (shim, os.getpid())
            with open(tmp, "w") as f:
                f.write(SHIM_SOURCE)
            os.replace(tmp, shim)
    return shim


def build(src_path, cache_dir, nvcc="nvcc", extra_flags=(), timeout_s=300):
    """Builds `src_path` into `<cache_dir>/<hash>.so` unless already there.

    Returns a dict: ok (bool), so (path or None), cached (bool), hash, cmd (list),
    seconds, log (nvcc's output, tail only, on failure)."""
    with open(src_path, "rb") as f:
        source = f.read()
    if os.sep in nvcc:
        nvcc = os.path.abspath(nvcc)    # nvcc runs in the source's folder
    cache_dir = os.path.abspath(cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
    shim = write_shim(cache_dir)

    flags = BASE_FLAGS + list(extra_flags)
    libs = link_flags(source.decode("utf-8", "replace"))
    key = hashlib.sha256()
    for part in (source, SHIM_SOURCE.encode(), " ".join(flags + libs).encode(),
                 (nvcc_version(nvcc) or "").encode()):
        key.update(hashlib.sha256(part).digest())
    digest = key.hexdigest()[:32]
    so = os.path.join(cache_dir, digest + ".so")
    cmd = [nvcc] + flags + [os.path.abspath(src_path), shim, "-o", so] + libs
    result = {"ok": True, "so": so, "cached": True, "hash": digest, "cmd": cmd, "seconds": 0.0}
    if os.path.exists(so):
        return result

    tmp_so = os.path.join(cache_dir, "%s.%d.%d.tmp.so" % (digest, os.getpid(), time.monotonic_ns()))
    cmd_tmp = cmd[:cmd.index("-o") + 1] + [tmp_so] + libs
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd_tmp, capture_output=True, text=True, timeout=timeout_s,
                              cwd=os.path.dirname(os.path.abspath(src_path)))
        ok, log = proc.returncode == 0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        ok, log = False, "nvcc timed out after %d s" % timeout_s
    except OSError as exc:
        ok, log = False, "cannot run nvcc: %s" % exc
    result.update(cached=False, seconds=round(time.monotonic() - t0, 2))
    if ok and os.path.exists(tmp_so):
        os.replace(tmp_so, so)          # atomic: a half-written library is never seen
    else:
        if os.path.exists(tmp_so):
            os.remove(tmp_so)
        result.update(ok=False, so=None, log=log[-4000:])
    return result


def safe_build(src_path, cache_dir, nvcc="nvcc", extra_flags=(), timeout_s=300):
    """build(), with any exception turned into a failed result (for thread pools)."""
    try:
        return build(src_path, cache_dir, nvcc, extra_flags, timeout_s)
    except Exception as exc:            # noqa: BLE001 - a build never stops the run
        return {"ok": False, "so": None, "cached": False, "hash": None, "seconds": 0.0,
                "cmd": [nvcc, src_path], "log": "%s: %s" % (type(exc).__name__, exc)}


def have_nvcc(nvcc="nvcc"):
    return shutil.which(nvcc) is not None


def short_cmd(cmd):
    """The build command as a string, with the cache paths shortened, for records."""
    return " ".join(re.sub(r"^.*/([0-9a-f]{32}\.so|kbench_shim\.cu)$", r"\1", c) for c in cmd)
