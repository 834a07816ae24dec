import torch
import torch.nn.functional as F

ENTRY = "conv2d_group_norm_scale_max_pool_clamp"


def forward(x, w, b, gamma, beta, scale, *, N, C, H, W, O, G, mk, clamp_min, clamp_max):
    """KernelBench L2/85: Conv2d(k=3) -> GroupNorm(G, affine) -> * scale (C,1,1)
    -> MaxPool2d(mk) -> clamp[clamp_min, clamp_max]."""
    y = F.conv2d(x, w, b)
    y = F.group_norm(y, G, gamma, beta, eps=1e-5)
    y = y * scale
    y = F.max_pool2d(y, kernel_size=mk)
    y = torch.clamp(y, clamp_min, clamp_max)
    return (y,)
