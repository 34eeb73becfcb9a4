"""Names imported from torch.cuda, the device made current with torch.cuda.device instead of
passed to each call, pop() for the deletion.
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
from torch.cuda import (empty_cache, is_available, max_memory_allocated, memory_allocated, memory_reserved,
                        reset_peak_memory_stats, synchronize)


def peak_memory_bytes(fn: Callable[[], Any], device: torch.device | str = "cuda") -> int:
    """Peak CUDA bytes allocated during fn() above the allocation level just before the call (reset peak stats, synchronize); 0, without calling fn, when CUDA is unavailable."""
    if not is_available():
        return 0
    with torch.cuda.device(device):  # the allocator functions below default to the current device
        synchronize()
        start = memory_allocated()
        reset_peak_memory_stats()
        fn()
        synchronize()
        grown = max_memory_allocated() - start
    return grown if grown > 0 else 0


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Delete container[k] for k in keys, gc.collect(), torch.cuda.empty_cache(); return (memory_allocated, memory_reserved) afterwards ((0, 0) without CUDA)."""
    for key in list(keys):
        container.pop(key)
    gc.collect()
    if not is_available():
        return 0, 0
    empty_cache()
    allocated = memory_allocated()
    return allocated, memory_reserved()
