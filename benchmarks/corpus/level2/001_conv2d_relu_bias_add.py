import torch
import torch.nn.functional as F

ENTRY = "conv2d_relu_bias_add"


def forward(x, conv_w, conv_b, bias, *, N, CI, H, W, CO):
    """KernelBench L2/1: Conv2d -> ReLU -> + bias (C,1,1); bias is passed flat as (CO,)."""
    y = F.conv2d(x, conv_w, conv_b)
    y = torch.relu(y)
    y = y + bias.view(CO, 1, 1)
    return (y,)
