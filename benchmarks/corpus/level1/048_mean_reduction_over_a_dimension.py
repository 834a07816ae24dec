import torch
import torch.nn.functional as F

ENTRY = "mean_reduction_over_a_dimension"


def forward(x, *, batch_size, dim1, dim2):
    # KernelBench's Model(dim) with dim=2 (the last dimension).
    return (torch.mean(x, dim=2),)
