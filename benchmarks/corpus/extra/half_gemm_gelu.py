import torch
import torch.nn.functional as F

ENTRY = "half_gemm_gelu"


def forward(x, w, b, *, M, K, N):
    # All tensors are float16, as in the .cu: the GEMM output and the biased sum are
    # rounded to half between operators.
    return (F.gelu(F.linear(x, w) + b),)
