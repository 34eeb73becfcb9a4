"""Permutes any input whose last dimension is 3 to channels-first, guessing the layout silently
instead of rejecting it.

Caught by: test_channels_last_layout_rejected
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def conv2d_out_hw(h: int, w: int, kernel: int | tuple[int, int], stride: int | tuple[int, int] = 1,
                  padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1) -> tuple[int, int]:
    """Output (H, W) of nn.Conv2d / nn.MaxPool2d (floor mode) with these hyper-parameters."""
    k, s, p, d = _pair(kernel), _pair(stride), _pair(padding), _pair(dilation)
    return tuple((size + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i, size in enumerate((h, w)))


class SmallCNN(nn.Module):
    """[Conv(3->16,k3,p1)-BN-ReLU-MaxPool2] -> [Conv(16->32,k3,p1)-BN-ReLU-MaxPool2] -> flatten -> Linear(num_classes), for inputs (N,3,height,width)."""

    def __init__(self, num_classes: int, height: int, width: int) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(32 * (height // 4) * (width // 4), num_classes)

    def forward(self, x: Tensor) -> Tensor:
        if x.shape[-1] == 3 and x.shape[1] != 3:
            x = x.permute(0, 3, 1, 2)
        return self.classifier(torch.flatten(self.features(x), 1))
