import torch
import torch.nn.functional as F

ENTRY = "shallow_wide_mlp"


def forward(x, w_in, b_in, w_hid, b_hid, w_out, b_out, *, B, IN, H, OUT):
    """KernelBench L3/2 ShallowWideMLP: two hidden Linear+ReLU layers of width H, then Linear."""
    h = F.relu(F.linear(x, w_in, b_in))
    h = F.relu(F.linear(h, w_hid, b_hid))
    return (F.linear(h, w_out, b_out),)
