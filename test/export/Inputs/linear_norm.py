# Linear (cuBLAS, as eager), layer norm, GELU and softmax over the last dimension.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features)

    def forward(self, x):
        y = self.norm(self.linear(x))
        return torch.softmax(torch.nn.functional.gelu(y), dim=-1)


batch_size = 32
in_features = 256
out_features = 128


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
