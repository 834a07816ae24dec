import torch
import torch.nn.functional as F

ENTRY = "conv2d_gelu_global_avg_pool"


def forward(x, w, b, *, N, CI, H, W, CO):
    """KernelBench L2/67: Conv2d(k=3) -> GELU -> adaptive_avg_pool2d(1) -> squeeze -> (N, CO)."""
    y = F.conv2d(x, w, b)
    y = F.gelu(y)
    y = F.adaptive_avg_pool2d(y, 1)
    y = y.squeeze(-1).squeeze(-1)
    return (y,)
