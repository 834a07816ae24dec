import torch
import torch.nn.functional as F

ENTRY = "leaky_relu"


def forward(x, *, B, D, negative_slope):
    return (F.leaky_relu(x, negative_slope=negative_slope),)
