import torch
import torch.nn.functional as F

ENTRY = "rms_norm"


def forward(x, *, N, C, H, W, eps):
    rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + eps)
    return (x / rms,)
