from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int, device: torch.device | str = "cpu") -> list[Tensor]:
    """Group single-sample requests (each (F,)) into batches of <= max_batch_size, run under eval + torch.inference_mode on device (model already there), return per-request outputs (model(batch)[j], shape (C,)) on CPU in request order; restore the model's mode."""
    raise NotImplementedError
