import math

import torch
import torch.nn.functional as F

ENTRY = "min_gpt_block_small"


def _new_gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def _causal_self_attention(x, attn_w, attn_b, proj_w, proj_b, B, T, C, NH):
    HD = C // NH
    q, k, v = F.linear(x, attn_w, attn_b).split(C, dim=2)
    k = k.view(B, T, NH, HD).transpose(1, 2)
    q = q.view(B, T, NH, HD).transpose(1, 2)
    v = v.view(B, T, NH, HD).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(HD))
    mask = torch.tril(torch.ones(T, T, device=x.device)).view(1, 1, T, T)
    att = att.masked_fill(mask == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    return F.linear(y, proj_w, proj_b)


def forward(x, ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, fc2_w,
            fc2_b, *, B, T, C, NH):
    """KernelBench L3/44 minGPT block (dropouts p=0), x[B][T][C] (launch slice 9)."""
    x = x + _causal_self_attention(F.layer_norm(x, (C,), ln1_w, ln1_b, 1e-5),
                                   attn_w, attn_b, proj_w, proj_b, B, T, C, NH)
    h = F.layer_norm(x, (C,), ln2_w, ln2_b, 1e-5)
    x = x + F.linear(_new_gelu(F.linear(h, fc_w, fc_b)), fc2_w, fc2_b)
    return (x,)
