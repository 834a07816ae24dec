import torch
import torch.nn.functional as F

ENTRY = "matmul_avg_pool_gelu_scale_max"


def forward(x, w, b, *, B, IN, OUT, P, scale_factor):
    """KernelBench L2/98: Linear -> AvgPool1d(P) over features -> GELU -> * scale -> max(dim=1).
    Output (B,)."""
    y = F.linear(x, w, b)
    y = F.avg_pool1d(y.unsqueeze(1), kernel_size=P).squeeze(1)
    y = F.gelu(y)
    y = y * scale_factor
    y = torch.max(y, dim=1).values
    return (y,)
