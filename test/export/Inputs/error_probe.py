"""The twin check's error probe, built with an exported file by verify.build (nvcc, no GPU
needed to build or to name errors): the library it loads can say the CUDA runtime's last error,
as the exported entry's own runtime saw it."""
import ctypes
import sys
import tempfile

from kfuse_export.verify import build

TEXT = """#include <cuda_runtime.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
extern "C" void entry(float* y, cudaStream_t stream) { k<<<1, 32, 0, stream>>>(y); }
"""
with tempfile.TemporaryDirectory() as folder:
    lib = ctypes.CDLL(build(TEXT, sys.argv[1], folder, "sm_90"))
    lib.kfuse_twin_error_name.restype = lib.kfuse_twin_error_string.restype = ctypes.c_char_p
    print("entry:", hasattr(lib, "entry"))
    print("probe:", hasattr(lib, "kfuse_twin_last_error"))
    print("name 2:", lib.kfuse_twin_error_name(2).decode())
    print("string 2:", lib.kfuse_twin_error_string(2).decode())
