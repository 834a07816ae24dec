"""Recurrent layers (nn.LSTM, nn.GRU) as one operator each.

torch.export unrolls a recurrent layer into its time steps and layers (thousands of
operators for KernelBench's 512 steps and 6 layers), which neither finishes in reasonable
time nor reads like eager. So before capture each nn.LSTM and nn.GRU of the model calls
`kfuse_export::rnn`, a custom operator that runs the layer as torch does (torch._VF.lstm,
torch._VF.gru) and that the capture keeps whole; the lowering (lower.Lowering.op_rnn) writes
it as eager's cuDNN does it: per layer and direction, one GEMM of the inputs over all time
steps, then a host loop over the steps, each a GEMM of the hidden state and a cell kernel.
"""
import types
from typing import List, Tuple

import torch
from torch import Tensor

from .errors import ExportError


@torch.library.custom_op("kfuse_export::rnn", mutates_args=())
def rnn(mode: str, x: Tensor, h0: Tensor, c0: Tensor, weights: List[Tensor], has_biases: bool, num_layers: int,
        batch_first: bool, bidirectional: bool) -> Tuple[Tensor, Tensor, Tensor]:
    if mode == "lstm":
        out, hn, cn = torch._VF.lstm(x, (h0, c0), weights, has_biases, num_layers, 0.0, False, bidirectional,
                                     batch_first)
        return out.clone(), hn.clone(), cn.clone()
    out, hn = torch._VF.gru(x, h0, weights, has_biases, num_layers, 0.0, False, bidirectional, batch_first)
    return out.clone(), hn.clone(), hn.new_empty(0)


@rnn.register_fake
def _rnn_fake(mode, x, h0, c0, weights, has_biases, num_layers, batch_first, bidirectional):
    d = 2 if bidirectional else 1
    hidden = h0.shape[2]
    # the state's first dimension is the layers' (fixed), its second the batch's
    torch._check(h0.shape[0] == num_layers * d)
    torch._check(h0.shape[1] == (x.shape[0] if batch_first else x.shape[1]))
    out = x.new_empty((x.shape[0], x.shape[1], d * hidden))  # (batch, time) or (time, batch)
    hn = h0.new_empty(h0.shape)
    cn = c0.new_empty(c0.shape) if mode == "lstm" else h0.new_empty(0)
    return out, hn, cn


def _forward(self, input, hx=None):
    mode = "lstm" if isinstance(self, torch.nn.LSTM) else "gru"
    if input.dim() != 3:
        raise ExportError("an unbatched (2-D) input to nn.%s" % type(self).__name__)
    if getattr(self, "proj_size", 0):
        raise ExportError("nn.LSTM with proj_size")
    d = 2 if self.bidirectional else 1
    batch = input.shape[0] if self.batch_first else input.shape[1]
    zeros = input.new_zeros((self.num_layers * d, batch, self.hidden_size))
    if mode == "lstm":
        h0, c0 = hx if hx is not None else (zeros, zeros)
    else:
        h0, c0 = (hx if hx is not None else zeros), zeros
    out, hn, cn = torch.ops.kfuse_export.rnn(mode, input, h0, c0, [getattr(self, n) for n in self._flat_weights_names], self.bias,
                                             self.num_layers, self.batch_first, self.bidirectional)
    return (out, (hn, cn)) if mode == "lstm" else (out, hn)


def patch(model):
    """Makes every nn.LSTM and nn.GRU of model call kfuse_export::rnn. Returns how many."""
    n = 0
    for m in model.modules():
        if type(m) in (torch.nn.LSTM, torch.nn.GRU):
            m.forward = types.MethodType(_forward, m)
            n += 1
    return n
