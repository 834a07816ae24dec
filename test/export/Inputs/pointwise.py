# A module of our own in KernelBench's form: pointwise operators with a broadcast bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x):
        y = torch.relu(x * 2.0 + self.bias)
        return torch.sigmoid(y) - 0.5


batch_size = 64
features = 1000


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
