import torch
import torch.nn.functional as F

ENTRY = "conv_depthwise_2d_square_input_square_kernel"


def forward(x, weight, *, N, C, H, W):
    return (F.conv2d(x, weight, stride=1, padding=0, groups=C),)
