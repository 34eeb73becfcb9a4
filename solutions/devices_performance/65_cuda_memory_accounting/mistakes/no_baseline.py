"""Returns the raw peak: the memory held before the call is counted as if fn had allocated it.

Caught by: test_peak_fake_cuda, test_peak_cuda
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import gc


def peak_memory_bytes(fn: Callable[[], Any], device: torch.device | str = "cuda") -> int:
    """Peak CUDA bytes allocated during fn() above the allocation level just before the call (reset peak stats, synchronize); 0, without calling fn, when CUDA is unavailable."""
    if not torch.cuda.is_available():
        return 0
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return int(torch.cuda.max_memory_allocated(device))


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Delete container[k] for k in keys, gc.collect(), torch.cuda.empty_cache(); return (memory_allocated, memory_reserved) afterwards ((0, 0) without CUDA)."""
    for key in keys:
        del container[key]
    gc.collect()
    if not torch.cuda.is_available():
        return (0, 0)
    torch.cuda.empty_cache()
    return (int(torch.cuda.memory_allocated()), int(torch.cuda.memory_reserved()))
