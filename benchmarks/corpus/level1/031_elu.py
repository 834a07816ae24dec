import torch
import torch.nn.functional as F

ENTRY = "elu"


def forward(x, *, batch_size, dim, alpha):
    return (F.elu(x, alpha=alpha),)
