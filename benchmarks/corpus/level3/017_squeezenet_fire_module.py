import torch
import torch.nn.functional as F

ENTRY = "squeezenet_fire_module"


def forward(x, sq_w, sq_b, e1_w, e1_b, e3_w, e3_b, *, N, C, H, W, S, E1, E3):
    """KernelBench L3/17 SqueezeNet Fire module."""
    s = F.relu(F.conv2d(x, sq_w, sq_b))
    e1 = F.relu(F.conv2d(s, e1_w, e1_b))
    e3 = F.relu(F.conv2d(s, e3_w, e3_b, padding=1))
    return (torch.cat([e1, e3], 1),)
