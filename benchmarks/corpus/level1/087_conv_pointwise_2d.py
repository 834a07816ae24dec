import torch
import torch.nn.functional as F

ENTRY = "conv_pointwise_2d"


def forward(x, weight, *, N, Cin, Cout, H, W):
    return (F.conv2d(x, weight),)
