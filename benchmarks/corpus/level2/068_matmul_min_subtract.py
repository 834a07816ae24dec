import torch
import torch.nn.functional as F

ENTRY = "matmul_min_subtract"


def forward(x, w, b, constant, *, B, IN, OUT):
    """KernelBench L2/68: Linear -> min(x, constant) -> - constant (constant: 1-element tensor)."""
    y = F.linear(x, w, b)
    y = torch.min(y, constant)
    y = y - constant
    return (y,)
