import torch
import torch.nn.functional as F

ENTRY = "average_pooling_3d"


def forward(x, *, N, C, D, H, W):
    return (F.avg_pool3d(x, kernel_size=3, stride=2, padding=1),)
