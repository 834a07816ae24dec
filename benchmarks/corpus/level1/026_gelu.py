import torch
import torch.nn.functional as F

ENTRY = "gelu"


def forward(x, *, batch_size, dim):
    return (F.gelu(x),)
