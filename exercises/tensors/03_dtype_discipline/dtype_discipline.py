from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def prepare_classification_batch(features: np.ndarray, labels: np.ndarray) -> tuple[Tensor, Tensor]:
    """Return (float32 features, int64 labels) ready for a float32 model and nn.CrossEntropyLoss; non-integral labels raise ValueError."""
    raise NotImplementedError


def pick_low_precision_dtype(x: Tensor) -> torch.dtype:
    """torch.float16 if every finite |x| <= 65504 (fp16 max), else torch.bfloat16."""
    raise NotImplementedError


def match_model_dtype(x: Tensor, model: nn.Module) -> Tensor:
    """Cast a floating input to the dtype and device of the model's first parameter; integer inputs keep their dtype but move device."""
    raise NotImplementedError
