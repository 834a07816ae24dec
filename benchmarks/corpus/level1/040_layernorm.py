import torch
import torch.nn.functional as F

ENTRY = "layernorm"


def forward(x, weight, bias, *, N, C, H, W):
    return (F.layer_norm(x, (C, H, W), weight, bias, eps=1e-5),)
