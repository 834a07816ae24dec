import torch
import torch.nn.functional as F

ENTRY = "mse_loss"


def forward(predictions, targets, *, batch_size, dim):
    return (torch.mean((predictions - targets) ** 2).reshape(1),)
