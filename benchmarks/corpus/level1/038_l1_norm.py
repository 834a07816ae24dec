import torch
import torch.nn.functional as F

ENTRY = "l1_norm"


def forward(x, *, batch_size, dim):
    return (x / torch.mean(torch.abs(x), dim=1, keepdim=True),)
