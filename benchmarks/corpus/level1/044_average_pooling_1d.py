import torch
import torch.nn.functional as F

ENTRY = "average_pooling_1d"


def forward(x, *, N, C, L, K, S, P):
    return (F.avg_pool1d(x, kernel_size=K, stride=S, padding=P),)
