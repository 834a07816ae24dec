import torch
import torch.nn.functional as F

ENTRY = "tall_skinny_matrix_multiplication"


def forward(A, B, *, M, N):
    return (torch.matmul(A, B),)
