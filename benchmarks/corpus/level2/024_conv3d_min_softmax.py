import torch
import torch.nn.functional as F

ENTRY = "conv3d_min_softmax"


def forward(x, w, b, *, N, C, D, H, W, F):
    """KernelBench L2/24: Conv3d(k=3) -> min over depth (dim=2) -> softmax(dim=1)."""
    y = torch.nn.functional.conv3d(x, w, b)
    y = torch.min(y, dim=2)[0]
    y = torch.softmax(y, dim=1)
    return (y,)
