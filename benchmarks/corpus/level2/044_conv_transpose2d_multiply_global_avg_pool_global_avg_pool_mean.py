import torch
import torch.nn.functional as F

ENTRY = "conv_transpose2d_multiply_global_avg_pool_global_avg_pool_mean"


def forward(x, w, b, *, N, CI, H, W, CO, K, S, P, OP, multiplier):
    """KernelBench L2/44: ConvTranspose2d -> * multiplier -> mean(H,W) keepdim -> mean(H,W) keepdim."""
    y = F.conv_transpose2d(x, w, b, stride=S, padding=P, output_padding=OP)
    y = y * multiplier
    y = torch.mean(y, dim=[2, 3], keepdim=True)
    y = torch.mean(y, dim=[2, 3], keepdim=True)
    return (y,)
