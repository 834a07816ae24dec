import torch
import torch.nn.functional as F

ENTRY = "argmax_over_a_dimension"


def forward(x, *, batch_size, dim1, dim2):
    return (torch.argmax(x, dim=1),)
