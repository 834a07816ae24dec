import torch
import torch.nn.functional as F

ENTRY = "hard_tanh"


def forward(x, *, batch_size, dim):
    return (F.hardtanh(x, min_val=-1.0, max_val=1.0),)
