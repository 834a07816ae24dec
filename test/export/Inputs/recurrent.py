# A two-layer LSTM (batch first) and a bidirectional GRU after it, with their final states.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, 2, batch_first=True)
        self.gru = nn.GRU(hidden, hidden, 1, batch_first=True, bidirectional=True)

    def forward(self, x, h0, c0):
        y, (hn, cn) = self.lstm(x, (h0, c0))
        z, gn = self.gru(y)
        return z, hn, gn


batch_size = 4
steps = 7
features = 12
hidden = 16


def get_inputs():
    return [torch.randn(batch_size, steps, features), torch.randn(2, batch_size, hidden),
            torch.randn(2, batch_size, hidden)]


def get_init_inputs():
    return [features, hidden]
