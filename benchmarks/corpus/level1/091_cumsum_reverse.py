import torch
import torch.nn.functional as F

ENTRY = "cumsum_reverse"


def forward(x, *, batch_size, L):
    return (torch.cumsum(x.flip(1), dim=1).flip(1),)
