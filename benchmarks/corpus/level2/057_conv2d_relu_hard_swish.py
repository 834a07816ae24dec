import torch
import torch.nn.functional as F

ENTRY = "conv2d_relu_hard_swish"


def forward(x, w, b, *, N, C, H, W, F):
    """KernelBench L2/57: Conv2d(k=3) -> ReLU -> x * clamp((x + 3) / 6, 0, 1)."""
    y = torch.nn.functional.conv2d(x, w, b)
    y = torch.relu(y)
    y = y * torch.clamp((y + 3) / 6, 0, 1)
    return (y,)
