import torch
import torch.nn.functional as F

ENTRY = "matmul_with_transposed_a"


def forward(A, B, *, M, K, N):
    return (torch.matmul(A.T, B),)
