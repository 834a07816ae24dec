import torch
import torch.nn.functional as F

ENTRY = "deep_narrow_mlp_small"


def forward(x, w_in, w_hid, b_hid, w_out, b_out, *, B, IN, H, L, OUT):
    """KernelBench L3/3 DeepNarrowMLP at batch 1 (launch slice 3): L hidden Linear+ReLU layers
    of width H, then Linear.
    w_hid[l-1] / b_hid[l] are the weight / bias of hidden layer l (b_hid[0] is layer 0's)."""
    h = F.relu(F.linear(x, w_in, b_hid[0]))
    for l in range(1, L):
        h = F.relu(F.linear(h, w_hid[l - 1], b_hid[l]))
    return (F.linear(h, w_out, b_out),)
