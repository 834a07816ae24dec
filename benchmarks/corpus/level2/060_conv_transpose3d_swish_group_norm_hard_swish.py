import torch
import torch.nn.functional as F

ENTRY = "conv_transpose3d_swish_group_norm_hard_swish"


def forward(x, w, b, gamma, beta, *, N, CI, D, H, W, CO, G, eps):
    """KernelBench L2/60: ConvTranspose3d(k=3, s=2, p=1) -> Swish -> GroupNorm(G, affine, eps)
    -> HardSwish."""
    y = F.conv_transpose3d(x, w, b, stride=2, padding=1)
    y = torch.sigmoid(y) * y
    y = F.group_norm(y, G, gamma, beta, eps=eps)
    y = F.hardswish(y)
    return (y,)
