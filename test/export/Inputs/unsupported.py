# An operator the exporter has no kernel for: sorting.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.exp(x)
        values, _ = torch.sort(y, dim=-1)
        return values


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
