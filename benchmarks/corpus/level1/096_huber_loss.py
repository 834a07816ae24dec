import torch
import torch.nn.functional as F

ENTRY = "huber_loss"


def forward(predictions, targets, *, batch_size, dim):
    return (F.smooth_l1_loss(predictions, targets, beta=1.0).reshape(1),)
