import torch
import torch.nn.functional as F

ENTRY = "conv3d_softmax_max_pool_max_pool"


def forward(x, w, b, *, N, CI, D, H, W, CO):
    """KernelBench L2/6: Conv3d(k=3) -> softmax(dim=1) -> MaxPool3d(2) -> MaxPool3d(2)."""
    y = F.conv3d(x, w, b)
    y = torch.softmax(y, dim=1)
    y = F.max_pool3d(y, 2)
    y = F.max_pool3d(y, 2)
    return (y,)
