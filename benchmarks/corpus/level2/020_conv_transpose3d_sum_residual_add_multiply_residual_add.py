import torch
import torch.nn.functional as F

ENTRY = "conv_transpose3d_sum_residual_add_multiply_residual_add"


def forward(x, w, b, bias, *, N, CI, D, H, W, CO, S, P, OP):
    """KernelBench L2/20: ConvTranspose3d(k=3, stride S, padding P, output_padding OP)
    -> original = clone -> + bias -> + original -> * original -> + original."""
    y = F.conv_transpose3d(x, w, b, stride=S, padding=P, output_padding=OP)
    original_x = y.clone().detach()
    y = y + bias
    y = y + original_x
    y = y * original_x
    y = y + original_x
    return (y,)
