import torch
import torch.nn.functional as F

ENTRY = "kl_div_loss"


def forward(predictions, targets, *, batch_size, dim):
    # KernelBench feeds softmax-normalized rows; here both inputs are drawn positive
    # directly (see the init lines), the math is the same.
    return (F.kl_div(torch.log(predictions), targets, reduction="batchmean").reshape(1),)
