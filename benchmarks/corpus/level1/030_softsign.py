import torch
import torch.nn.functional as F

ENTRY = "softsign"


def forward(x, *, batch_size, dim):
    return (x / (1 + torch.abs(x)),)
