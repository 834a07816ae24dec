import torch
import torch.nn.functional as F

ENTRY = "relu"


def forward(x, *, batch_size, dim):
    return (torch.relu(x),)
