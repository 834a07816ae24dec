import torch
import torch.nn.functional as F

ENTRY = "swish"


def forward(x, *, batch_size, dim):
    return (x * torch.sigmoid(x),)
