from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler




class SeqClassifier(nn.Module):
    """self.rnn = nn.{RNN,LSTM,GRU}(batch_first=True, ...); self.fc = Linear(hidden*dirs, num_classes) on the LAST layer's final hidden state (both directions concatenated)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, num_classes: int,
                 cell: Literal["rnn", "lstm", "gru"] = "lstm", bidirectional: bool = False) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor, h0: Tensor | tuple[Tensor, Tensor] | None = None) -> Tensor:
        raise NotImplementedError
