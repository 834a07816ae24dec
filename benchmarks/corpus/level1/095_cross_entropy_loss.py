import torch
import torch.nn.functional as F

ENTRY = "cross_entropy_loss"


def forward(predictions, targets, *, batch_size, num_classes):
    return (F.cross_entropy(predictions, targets).reshape(1),)
