import torch
import torch.nn.functional as F

ENTRY = "matmul_with_irregular_shapes"


def forward(A, B, *, M, K, N):
    return (torch.matmul(A, B),)
