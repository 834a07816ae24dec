import torch
import torch.nn.functional as F

ENTRY = "vgg16"

_CFG = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]


def forward(x, conv_w, conv_b, fc1_w, fc1_b, fc2_w, fc2_b, fc3_w, fc3_b, *, B, S, HID, NC):
    """KernelBench L3/11 VGG16 on x[B][3][S][S] (S=224 in KernelBench); the 13 conv layers'
    weights/biases are packed layer after layer in conv_w / conv_b. Dropout p=0 is omitted."""
    h = x
    c_in, w_off, b_off = 3, 0, 0
    for v in _CFG:
        if v == "M":
            h = F.max_pool2d(h, kernel_size=2, stride=2)
        else:
            n_w = v * c_in * 9
            w = conv_w[w_off:w_off + n_w].view(v, c_in, 3, 3)
            b = conv_b[b_off:b_off + v]
            h = F.relu(F.conv2d(h, w, b, padding=1))
            w_off += n_w
            b_off += v
            c_in = v
    h = torch.flatten(h, 1)
    h = F.relu(F.linear(h, fc1_w, fc1_b))
    h = F.relu(F.linear(h, fc2_w, fc2_b))
    return (F.linear(h, fc3_w, fc3_b),)
