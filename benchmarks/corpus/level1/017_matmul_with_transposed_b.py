import torch
import torch.nn.functional as F

ENTRY = "matmul_with_transposed_b"


def forward(A, B, *, M, K, N):
    return (torch.matmul(A, B.T),)
