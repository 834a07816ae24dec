import torch
import torch.nn.functional as F

ENTRY = "lenet5_batch1"


def forward(x, conv1_w, conv1_b, conv2_w, conv2_b, fc1_w, fc1_b, fc2_w, fc2_b, fc3_w, fc3_b,
            *, B, NC):
    """KernelBench L3/4 LeNet-5 on x[B][1][32][32] (launch slice 7, batch 1)."""
    h = F.max_pool2d(F.relu(F.conv2d(x, conv1_w, conv1_b, stride=1)), kernel_size=2, stride=2)
    h = F.max_pool2d(F.relu(F.conv2d(h, conv2_w, conv2_b, stride=1)), kernel_size=2, stride=2)
    h = h.view(-1, 16 * 5 * 5)
    h = F.relu(F.linear(h, fc1_w, fc1_b))
    h = F.relu(F.linear(h, fc2_w, fc2_b))
    return (F.linear(h, fc3_w, fc3_b),)
