import torch
import torch.nn.functional as F

ENTRY = "conv_standard_2d_square_input_square_kernel"


def forward(x, weight, bias, *, N, Cin, H, W, Cout):
    return (F.conv2d(x, weight, bias, stride=4, padding=2),)
