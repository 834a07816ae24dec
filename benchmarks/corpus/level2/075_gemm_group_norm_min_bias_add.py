import torch
import torch.nn.functional as F

ENTRY = "gemm_group_norm_min_bias_add"


def forward(x, w, b, gamma, beta, bias, *, B, K, F, G):
    """KernelBench L2/75: Linear -> GroupNorm(G, F) -> min(dim=1, keepdim) -> + bias (1,F,1,1).
    The (B,1) + (1,F,1,1) broadcast gives a (1, F, B, 1) output."""
    y = torch.nn.functional.linear(x, w, b)
    y = torch.nn.functional.group_norm(y, G, gamma, beta, eps=1e-5)
    y = torch.min(y, dim=1, keepdim=True)[0]
    y = y + bias
    return (y,)
