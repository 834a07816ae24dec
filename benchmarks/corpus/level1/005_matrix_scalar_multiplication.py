import torch
import torch.nn.functional as F

ENTRY = "matrix_scalar_multiplication"


def forward(A, *, M, N, s):
    return (A * s,)
