import torch

ENTRY = "small_matmul"


def forward(A, B, *, M, K, N):
    return (A @ B,)
