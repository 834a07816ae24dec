import torch
import torch.nn.functional as F

ENTRY = "sigmoid"


def forward(x, *, batch_size, dim):
    return (torch.sigmoid(x),)
