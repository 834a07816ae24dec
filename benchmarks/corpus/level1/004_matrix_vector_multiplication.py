import torch
import torch.nn.functional as F

ENTRY = "matrix_vector_multiplication"


def forward(A, B, *, M, K):
    return (torch.matmul(A, B),)
