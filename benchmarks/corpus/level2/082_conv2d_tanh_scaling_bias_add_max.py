import torch
import torch.nn.functional as F

ENTRY = "conv2d_tanh_scaling_bias_add_max"


def forward(x, w, b, bias, *, N, C, H, W, K, pool, scaling_factor):
    """KernelBench L2/82: Conv2d(k=3) -> tanh -> * scaling -> + bias (C,1,1) -> MaxPool2d(pool)."""
    y = F.conv2d(x, w, b)
    y = torch.tanh(y)
    y = y * scaling_factor
    y = y + bias
    y = F.max_pool2d(y, pool)
    return (y,)
