from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def conv2d_out_hw(h: int, w: int, kernel: int | tuple[int, int], stride: int | tuple[int, int] = 1,
                  padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1) -> tuple[int, int]:
    """Output (H, W) of nn.Conv2d / nn.MaxPool2d (floor mode) with these hyper-parameters."""
    raise NotImplementedError


class SmallCNN(nn.Module):
    """[Conv(3->16,k3,p1)-BN-ReLU-MaxPool2] -> [Conv(16->32,k3,p1)-BN-ReLU-MaxPool2] -> flatten -> Linear(num_classes), for inputs (N,3,height,width)."""

    def __init__(self, num_classes: int, height: int, width: int) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
