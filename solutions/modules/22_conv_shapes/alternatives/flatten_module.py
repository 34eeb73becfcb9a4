"""One nn.Sequential with nn.Flatten, built from a block helper; the formula with integer
division written per axis."""
from __future__ import annotations

from torch import nn


def conv2d_out_hw(h, w, kernel, stride=1, padding=0, dilation=1):
    args = [a if isinstance(a, tuple) else (a, a) for a in (kernel, stride, padding, dilation)]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = args
    return ((h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1)


def block(c_in, c_out):
    return [nn.Conv2d(c_in, c_out, 3, 1, 1), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2)]


class SmallCNN(nn.Module):
    def __init__(self, num_classes, height, width):
        super().__init__()
        self.net = nn.Sequential(*block(3, 16), *block(16, 32), nn.Flatten(),
                                 nn.Linear(32 * (height // 2 // 2) * (width // 2 // 2), num_classes))

    def forward(self, x):
        return self.net(x)
