import torch
import torch.nn.functional as F

ENTRY = "conv_transpose2d_softmax_bias_add_scaling_sigmoid"


def forward(x, w, conv_b, bias, *, N, CI, H, W, CO, scaling_factor):
    """KernelBench L2/91: ConvTranspose2d(k=4, s=2, p=1, op=1) -> softmax(dim=1)
    -> + bias (C,1,1) -> * scaling -> sigmoid."""
    y = F.conv_transpose2d(x, w, conv_b, stride=2, padding=1, output_padding=1)
    y = torch.softmax(y, dim=1)
    y = y + bias
    y = y * scaling_factor
    y = torch.sigmoid(y)
    return (y,)
