import torch
import torch.nn.functional as F

ENTRY = "conv2d_instance_norm_divide"


def forward(x, w, b, *, N, CI, H, W, CO, divide_by):
    """KernelBench L2/17: Conv2d(k=3) -> InstanceNorm2d (no affine, eps=1e-5) -> / divide_by."""
    y = F.conv2d(x, w, b)
    y = F.instance_norm(y, eps=1e-5)
    y = y / divide_by
    return (y,)
