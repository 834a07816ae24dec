import torch
import torch.nn.functional as F

ENTRY = "max_pooling_2d"


def forward(x, *, N, C, H, W):
    return (F.max_pool2d(x, kernel_size=4, stride=1, padding=1, dilation=1),)
