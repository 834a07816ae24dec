import torch
import torch.nn.functional as F

ENTRY = "batched_matmul"


def forward(A, B, *, batch, m, k, n):
    return (torch.bmm(A, B),)
