import torch
import torch.nn.functional as F

ENTRY = "conv2d_subtract_hard_swish_max_pool_mish"


def forward(x, conv_w, conv_b, *, N, C, H, W, K, subtract_value):
    """KernelBench L2/35: Conv2d(k=3) -> - subtract_value -> HardSwish -> MaxPool2d(2) -> Mish."""
    y = F.conv2d(x, conv_w, conv_b)
    y = y - subtract_value
    y = F.hardswish(y)
    y = F.max_pool2d(y, 2)
    y = F.mish(y)
    return (y,)
