import torch
import torch.nn.functional as F

ENTRY = "conv2d_subtract_tanh_subtract_avg_pool"


def forward(x, w, b, *, N, Cin, H, W, Cout, K, kp, v1, v2):
    """KernelBench L2/46: Conv2d -> - v1 -> tanh -> - v2 -> AvgPool2d(kp)."""
    y = F.conv2d(x, w, b)
    y = y - v1
    y = torch.tanh(y)
    y = y - v2
    y = F.avg_pool2d(y, kp)
    return (y,)
