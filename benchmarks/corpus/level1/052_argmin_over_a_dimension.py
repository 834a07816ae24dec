import torch
import torch.nn.functional as F

ENTRY = "argmin_over_a_dimension"


def forward(x, *, B, D1, D2):
    return (torch.argmin(x, dim=1),)
