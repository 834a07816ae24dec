import torch
import torch.nn.functional as F

ENTRY = "conv_transposed_1d_asymmetric_input_square_kernel_padded_strided_dilated"


def forward(x, weight, *, N, Cin, Cout, L, K, S, P, dil):
    return (F.conv_transpose1d(x, weight, stride=S, padding=P, dilation=dil),)
