import torch
import torch.nn.functional as F

ENTRY = "conv2d_min_add_multiply"


def forward(x, conv_w, conv_b, bias, *, N, CI, H, W, CO, KS, constant_value, scaling_factor):
    """KernelBench L2/31: Conv2d -> min(x, constant) -> + bias (C,1,1) -> * scaling."""
    y = F.conv2d(x, conv_w, conv_b)
    y = torch.clamp(y, max=constant_value)
    y = y + bias
    y = y * scaling_factor
    return (y,)
