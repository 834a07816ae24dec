import torch
import torch.nn.functional as F

ENTRY = "gemm_add_relu"


def forward(x, w, bias, *, B, IN, OUT):
    """KernelBench L2/76: Linear (no bias) -> + bias (OUT,) -> ReLU."""
    y = F.linear(x, w)
    y = y + bias
    y = torch.relu(y)
    return (y,)
