import torch
import torch.nn.functional as F

ENTRY = "tensor_3d_matrix_multiplication"


def forward(A, B, *, N, M, K, L):
    return (torch.matmul(A, B),)
