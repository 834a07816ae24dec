import torch
import torch.nn.functional as F

ENTRY = "bmm_instance_norm_sum_residual_add_multiply"


def forward(x, y, w, b, *, B, IN, F, eps):
    """KernelBench L2/28: Linear -> InstanceNorm2d on the (B,1,1,F) view -> + y -> * y."""
    t = torch.nn.functional.linear(x, w, b)
    t = torch.nn.functional.instance_norm(t.unsqueeze(1).unsqueeze(1), eps=eps)
    t = t.squeeze(1).squeeze(1)
    t = t + y
    t = t * y
    return (t,)
