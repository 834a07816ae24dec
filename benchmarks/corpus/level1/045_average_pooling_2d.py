import torch
import torch.nn.functional as F

ENTRY = "average_pooling_2d"


def forward(x, *, N, C, H, W):
    return (F.avg_pool2d(x, kernel_size=11),)
