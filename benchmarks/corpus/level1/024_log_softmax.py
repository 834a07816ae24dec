import torch
import torch.nn.functional as F

ENTRY = "log_softmax"


def forward(x, *, batch_size, dim):
    return (F.log_softmax(x, dim=1),)
