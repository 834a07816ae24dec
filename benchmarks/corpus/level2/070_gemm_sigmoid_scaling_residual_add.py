import torch
import torch.nn.functional as F

ENTRY = "gemm_sigmoid_scaling_residual_add"


def forward(x, w, b, *, B, IN, HID, scaling_factor):
    """KernelBench L2/70: Linear (=original) -> sigmoid -> * scaling -> + original."""
    y = F.linear(x, w, b)
    original_x = y
    y = torch.sigmoid(y)
    y = y * scaling_factor
    y = y + original_x
    return (y,)
