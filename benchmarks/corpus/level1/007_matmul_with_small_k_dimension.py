import torch
import torch.nn.functional as F

ENTRY = "matmul_with_small_k_dimension"


def forward(A, B, *, M, K, N):
    return (torch.matmul(A, B),)
