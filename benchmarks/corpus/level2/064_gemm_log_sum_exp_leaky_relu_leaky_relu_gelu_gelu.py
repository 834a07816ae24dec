import torch
import torch.nn.functional as F

ENTRY = "gemm_log_sum_exp_leaky_relu_leaky_relu_gelu_gelu"


def forward(x, w, b, *, M, K, N):
    """KernelBench L2/64: Linear -> logsumexp(dim=1, keepdim) -> LeakyReLU(0.01) x2 -> GELU x2."""
    y = F.linear(x, w, b)
    y = torch.logsumexp(y, dim=1, keepdim=True)
    y = F.leaky_relu(y, negative_slope=0.01)
    y = F.leaky_relu(y, negative_slope=0.01)
    y = F.gelu(y)
    y = F.gelu(y)
    return (y,)
