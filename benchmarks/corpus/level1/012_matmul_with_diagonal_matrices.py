import torch
import torch.nn.functional as F

ENTRY = "matmul_with_diagonal_matrices"


def forward(A, B, *, N, M):
    return (A.unsqueeze(1) * B,)
