import torch
import torch.nn.functional as F

ENTRY = "pointwise_chain"


def forward(x, *, N, D):
    """Launch slice 1: 24 elementwise operators, one eager kernel each (softsign is
    PyTorch's own composite)."""
    y = x * 0.8
    y = y + 0.5
    y = F.gelu(y, approximate="tanh")
    y = torch.tanh(y)
    y = y * 3.0
    y = torch.sigmoid(y)
    y = y + (-0.5)
    y = y * 4.0
    y = F.softsign(y)
    y = y * 2.0
    y = F.silu(y)
    y = F.hardtanh(y, min_val=-1.0, max_val=1.0)
    y = y + 0.2
    y = torch.relu(y)
    y = y * 3.0
    y = y + (-1.5)
    y = F.elu(y)
    y = F.softplus(y)
    y = y * 2.0
    y = y + (-2.0)
    y = F.leaky_relu(y, negative_slope=0.01)
    y = torch.sigmoid(y)
    y = torch.tanh(y)
    y = y * 5.0
    return (y,)
