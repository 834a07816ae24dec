import torch
import torch.nn.functional as F

ENTRY = "square_matmul"


def forward(A, B, *, N):
    return (torch.matmul(A, B),)
