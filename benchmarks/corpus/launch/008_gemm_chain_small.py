import torch
import torch.nn.functional as F

ENTRY = "gemm_chain_small"


def forward(x, w, b, add_value, *, B, IN, OUT):
    """KernelBench L2/95 at small shapes (launch slice 8): Linear -> + add_value (OUT,) -> Swish
    -> tanh -> GELU -> Hardtanh[-1,1]."""
    y = F.linear(x, w, b)
    y = y + add_value
    y = torch.sigmoid(y) * y
    y = torch.tanh(y)
    y = F.gelu(y)
    y = F.hardtanh(y, min_val=-1, max_val=1)
    return (y,)
