from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def peak_memory_bytes(fn: Callable[[], Any], device: torch.device | str = "cuda") -> int:
    """Peak CUDA bytes allocated during fn() above the allocation level just before the call (reset peak stats, synchronize); 0, without calling fn, when CUDA is unavailable."""
    raise NotImplementedError


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Delete container[k] for k in keys, gc.collect(), torch.cuda.empty_cache(); return (memory_allocated, memory_reserved) afterwards ((0, 0) without CUDA)."""
    raise NotImplementedError
