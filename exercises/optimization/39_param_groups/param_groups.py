from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def build_param_groups(model: nn.Module, base_lr: float, weight_decay: float, lr_overrides: dict[str, float] | None = None) -> list[dict]:
    """Groups for torch.optim.AdamW over trainable params only: biases and all params of norm layers (by module type) get weight_decay=0; params under the longest matching module prefix in lr_overrides get that lr."""
    raise NotImplementedError
