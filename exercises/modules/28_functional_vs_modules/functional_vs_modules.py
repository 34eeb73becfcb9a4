from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class FunctionalNet(nn.Module):
    """self.fc1, self.fc2 = Linear layers; forward: fc2(F.dropout(F.gelu(fc1(x)), p, training=<module mode>)); no nn.Dropout/nn.GELU modules."""

    def __init__(self, in_features: int, hidden: int, out_features: int, p: float = 0.5) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
