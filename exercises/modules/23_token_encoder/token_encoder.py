from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class TokenEncoder(nn.Module):
    """tokens (B,T) int -> (B,T,d_model): Embedding(padding_idx=pad_idx) -> self-attention (batch_first, pad keys masked) -> residual -> LayerNorm; all-pad rows yield finite outputs."""

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, pad_idx: int = 0) -> None:
        raise NotImplementedError

    def forward(self, tokens: Tensor) -> Tensor:
        raise NotImplementedError
