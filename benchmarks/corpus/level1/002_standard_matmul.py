import torch
import torch.nn.functional as F

ENTRY = "standard_matmul"


def forward(A, B, *, M, K, N):
    return (torch.matmul(A, B),)
