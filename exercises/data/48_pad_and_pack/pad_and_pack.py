from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def pad_collate(batch: list[tuple[Tensor, int]], pad_value: float = 0.0) -> tuple[Tensor, Tensor, Tensor]:
    """[(seq (L_i,F), label)] -> (padded (B,L_max,F), lengths (B,) int64 on CPU, labels (B,) int64), preserving batch order; any L_i == 0 raises ValueError."""
    raise NotImplementedError


class PackedGRUClassifier(nn.Module):
    """self.gru = nn.GRU(batch_first=True) run on pack_padded_sequence(enforce_sorted=False); self.fc on h_n; logits invariant to padding."""
    def __init__(self, input_size: int, hidden_size: int, num_classes: int) -> None:
        raise NotImplementedError

    def forward(self, padded: Tensor, lengths: Tensor) -> Tensor:
        raise NotImplementedError
