import torch
import torch.nn.functional as F

ENTRY = "conv2d_min_tanh_tanh"


def forward(x, conv_w, conv_b, *, N, CI, H, W, CO):
    """KernelBench L2/25: Conv2d(k=3) -> min over channels (keepdim) -> tanh -> tanh."""
    y = F.conv2d(x, conv_w, conv_b)
    y = torch.min(y, dim=1, keepdim=True)[0]
    y = torch.tanh(y)
    y = torch.tanh(y)
    return (y,)
