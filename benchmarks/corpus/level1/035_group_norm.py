import torch
import torch.nn.functional as F

ENTRY = "group_norm"


def forward(x, weight, bias, *, N, C, G, H, W, eps):
    return (F.group_norm(x, G, weight, bias, eps=eps),)
