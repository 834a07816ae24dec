import torch

ENTRY = "scale_add"


def forward(x, b, *, N, M, alpha):
    return (x * alpha + b,)
