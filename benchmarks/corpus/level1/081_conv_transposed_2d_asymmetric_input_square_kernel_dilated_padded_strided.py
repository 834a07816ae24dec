import torch
import torch.nn.functional as F

ENTRY = "conv_transposed_2d_asymmetric_input_square_kernel_dilated_padded_strided"


def forward(x, weight, *, N, Cin, Cout, H, W, K, S, P, dil):
    return (F.conv_transpose2d(x, weight, stride=S, padding=P, dilation=dil),)
