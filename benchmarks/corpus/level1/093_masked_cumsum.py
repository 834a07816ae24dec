import torch
import torch.nn.functional as F

ENTRY = "masked_cumsum"


def forward(x, mask, *, batch_size, L):
    return (torch.cumsum(x * mask, dim=1),)
