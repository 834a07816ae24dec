import torch
import torch.nn.functional as F

ENTRY = "conv2d_add_scale_sigmoid_group_norm"


def forward(x, conv_w, conv_b, bias, scale, gamma, beta, *, N, CI, H, W, CO, G):
    """KernelBench L2/21: Conv2d(k=3) -> + bias (C,1,1) -> * scale (C,1,1) -> sigmoid
    -> GroupNorm(G, CO) with affine gamma/beta, eps=1e-5."""
    y = F.conv2d(x, conv_w, conv_b)
    y = y + bias
    y = y * scale
    y = torch.sigmoid(y)
    y = F.group_norm(y, G, gamma, beta, eps=1e-5)
    return (y,)
