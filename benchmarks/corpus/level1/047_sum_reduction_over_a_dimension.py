import torch
import torch.nn.functional as F

ENTRY = "sum_reduction_over_a_dimension"


def forward(x, *, batch_size, dim1, dim2):
    return (torch.sum(x, dim=1, keepdim=True),)
