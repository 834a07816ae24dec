import torch
import torch.nn.functional as F

ENTRY = "conv2d_divide_leaky_relu"


def forward(input, weight, bias, *, batch, cin, h, w, cout, k, divisor):
    """KernelBench L2/71: Conv2d -> / divisor -> LeakyReLU(0.01)."""
    y = F.conv2d(input, weight, bias)
    y = y / divisor
    y = F.leaky_relu(y, negative_slope=0.01)
    return (y,)
