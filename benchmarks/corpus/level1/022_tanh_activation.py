import torch
import torch.nn.functional as F

ENTRY = "tanh_activation"


def forward(x, *, N, D):
    return (torch.tanh(x),)
