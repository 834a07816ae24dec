import torch
import torch.nn.functional as F

ENTRY = "conv2d_group_norm_tanh_hard_swish_residual_add_log_sum_exp"


def forward(x, w, b, gamma, beta, *, N, C, H, W, O, G, eps):
    """KernelBench L2/92: Conv2d(k=3) -> GroupNorm(G, affine, eps) -> tanh -> HardSwish
    -> + conv output -> logsumexp over channels (keepdim)."""
    x_conv = F.conv2d(x, w, b)
    y = F.group_norm(x_conv, G, gamma, beta, eps=eps)
    y = torch.tanh(y)
    y = F.hardswish(y)
    y = x_conv + y
    y = torch.logsumexp(y, dim=1, keepdim=True)
    return (y,)
