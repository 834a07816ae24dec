import torch
import torch.nn.functional as F

ENTRY = "vanilla_rnn_hidden_small"


def forward(x, h0, i2h_w, i2h_b, h2o_w, h2o_b, *, T, B, I, H, O):
    """KernelBench L3/34 VanillaRNNHidden at small shapes (launch slice 4): x[T][B][I], h0[B][H]
    -> stacked outputs [T][B][O]."""
    hidden = h0
    outputs = []
    for t in range(T):
        combined = torch.cat((x[t], hidden), dim=1)
        hidden = torch.tanh(F.linear(combined, i2h_w, i2h_b))
        outputs.append(F.linear(hidden, h2o_w, h2o_b))
    return (torch.stack(outputs, dim=0),)
