import torch
import torch.nn.functional as F

ENTRY = "triplet_margin_loss"


def forward(anchor, positive, negative, *, batch_size, dim, margin):
    return (F.triplet_margin_loss(anchor, positive, negative, margin=margin, p=2.0, eps=1e-6).reshape(1),)
