import torch
import torch.nn.functional as F

ENTRY = "instance_norm"


def forward(x, *, N, C, H, W, eps):
    return (F.instance_norm(x, eps=eps),)
