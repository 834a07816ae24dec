# A convolution with batch norm (eval mode: running statistics), max pooling and global
# average pooling.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, out_channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return torch.mean(y, dim=(2, 3))


batch_size = 8
channels = 3
out_channels = 16
size = 32


def get_inputs():
    return [torch.randn(batch_size, channels, size, size)]


def get_init_inputs():
    return [channels, out_channels]
