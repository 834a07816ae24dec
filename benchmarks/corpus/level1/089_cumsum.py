import torch
import torch.nn.functional as F

ENTRY = "cumsum"


def forward(x, *, batch_size, L):
    return (torch.cumsum(x, dim=1),)
