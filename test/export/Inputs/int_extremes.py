# The max and min of integer and bool tensors: each starts from its own type's limit.
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, b):
        return x.amax(dim=1), x.amin(dim=1), b.amax(dim=1), b.amin(dim=1)
def get_inputs():
    return [torch.randint(-100, -1, (8, 64), dtype=torch.int32), torch.zeros(8, 64, dtype=torch.bool)]
def get_init_inputs():
    return []
