# Gathers, an embedding, a concatenation, padding and a flip.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, x, idx, tokens):
        a = torch.gather(x, 1, idx)
        b = torch.index_select(x, 1, idx[0])
        e = self.embed(tokens).sum(dim=1)
        y = torch.cat([a, b, e], dim=1)
        return torch.flip(nn.functional.pad(y, (1, 2)), dims=[1])


batch_size = 6
width = 10
vocab = 50
dim = 8


def get_inputs():
    return [torch.randn(batch_size, width), torch.randint(0, width, (batch_size, 4)),
            torch.randint(0, vocab, (batch_size, 3))]


def get_init_inputs():
    return [vocab, dim]
