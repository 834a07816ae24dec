import torch
import torch.nn.functional as F

ENTRY = "softplus"


def forward(x, *, batch_size, dim):
    return (F.softplus(x, beta=1.0, threshold=20.0),)
