"""Named layers called one by one with the functional ReLU and pooling; the flatten size from
the candidate's own conv2d_out_hw; a float formula with math.floor."""
from __future__ import annotations

import math

import torch.nn.functional as F
from torch import nn


def conv2d_out_hw(h, w, kernel, stride=1, padding=0, dilation=1):
    def two(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v, v)

    ks, ss, ps, ds = two(kernel), two(stride), two(padding), two(dilation)
    out = []
    for size, k, s, p, d in zip((h, w), ks, ss, ps, ds):
        out.append(int(math.floor((size + 2 * p - d * (k - 1) - 1) / s + 1)))
    return out[0], out[1]


class SmallCNN(nn.Module):
    def __init__(self, num_classes, height, width):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16)
        self.conv2, self.bn2 = nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32)
        h, w = height, width
        for _ in range(2):
            h, w = conv2d_out_hw(h, w, 3, padding=1)
            h, w = conv2d_out_hw(h, w, 2, stride=2)
        self.fc = nn.Linear(32 * h * w, num_classes)

    def forward(self, x):
        if x.dim() != 4 or x.shape[1] != 3:
            raise ValueError(f"expected (N, 3, H, W), got {tuple(x.shape)}")
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.reshape(x.shape[0], -1))
