import torch
import torch.nn.functional as F

ENTRY = "softmax_layernorm_small"


def forward(x, weight, bias, *, N, D):
    """Launch slice 10: softmax over rows, layer norm over the last dim (affine, eps 1e-5),
    erf GELU, then RMS norm over the last dim (no weight, eps 1e-5), on x[N][D]."""
    p = F.softmax(x, dim=1)
    h = F.layer_norm(p, (D,), weight, bias, eps=1e-5)
    g = F.gelu(h)
    rms = torch.sqrt(torch.mean(g ** 2, dim=1, keepdim=True) + 1e-5)
    return (g / rms,)
