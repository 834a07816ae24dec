import torch
import torch.nn.functional as F

ENTRY = "conv3d_multiply_instance_norm_clamp_multiply_max"


def forward(x, w, b, multiplier, *, N, C, D, H, W, O, clamp_min, clamp_max):
    """KernelBench L2/79: Conv3d(k=3) -> * multiplier (C,1,1,1) -> InstanceNorm3d (no affine)
    -> clamp[min, max] -> * multiplier -> max over channels (dim=1)."""
    y = F.conv3d(x, w, b)
    y = y * multiplier
    y = F.instance_norm(y, eps=1e-5)
    y = torch.clamp(y, clamp_min, clamp_max)
    y = y * multiplier
    y = torch.max(y, dim=1)[0]
    return (y,)
