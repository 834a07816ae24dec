import torch
import torch.nn.functional as F

ENTRY = "hard_sigmoid"


def forward(x, *, batch_size, dim):
    return (F.hardsigmoid(x),)
