import torch
import torch.nn.functional as F

ENTRY = "selu"


def forward(x, *, batch_size, dim):
    return (torch.selu(x),)
