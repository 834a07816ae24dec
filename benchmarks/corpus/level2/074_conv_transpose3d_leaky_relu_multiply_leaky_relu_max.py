import torch
import torch.nn.functional as F

ENTRY = "conv_transpose3d_leaky_relu_multiply_leaky_relu_max"


def forward(x, w, b, multiplier, *, N, CI, D, H, W, CO):
    """KernelBench L2/74: ConvTranspose3d(k=3, s=2, p=1, op=1) -> LeakyReLU(0.2)
    -> * multiplier (C,1,1,1) -> LeakyReLU(0.2) -> MaxPool3d(2)."""
    y = F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1)
    y = F.leaky_relu(y, negative_slope=0.2)
    y = y * multiplier
    y = F.leaky_relu(y, negative_slope=0.2)
    y = F.max_pool3d(y, kernel_size=2)
    return (y,)
