import torch
import torch.nn.functional as F

ENTRY = "matmul_scaling_residual_add"


def forward(x, w, b, *, B, IN, OUT, scaling_factor):
    """KernelBench L2/40: Linear -> original = clone -> x * scaling_factor + original."""
    y = F.linear(x, w, b)
    original_x = y.clone().detach()
    y = y * scaling_factor
    y = y + original_x
    return (y,)
