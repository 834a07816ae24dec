import torch
import torch.nn.functional as F

ENTRY = "googlenet_inception_module"


def forward(x, w1x1, b1x1, w3x3_red, b3x3_red, w3x3, b3x3, w5x5_red, b5x5_red, w5x5, b5x5,
            wpool, bpool, *, N, H, W):
    """KernelBench L3/6 GoogLeNet Inception module (4 branches, concat on channels)."""
    branch1x1 = F.conv2d(x, w1x1, b1x1)
    branch3x3 = F.conv2d(F.conv2d(x, w3x3_red, b3x3_red), w3x3, b3x3, padding=1)
    branch5x5 = F.conv2d(F.conv2d(x, w5x5_red, b5x5_red), w5x5, b5x5, padding=2)
    branch_pool = F.conv2d(F.max_pool2d(x, kernel_size=3, stride=1, padding=1), wpool, bpool)
    return (torch.cat([branch1x1, branch3x3, branch5x5, branch_pool], 1),)
