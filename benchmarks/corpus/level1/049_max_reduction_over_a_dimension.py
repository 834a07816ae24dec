import torch
import torch.nn.functional as F

ENTRY = "max_reduction_over_a_dimension"


def forward(x, *, B, D1, D2):
    return (torch.max(x, dim=1)[0],)
