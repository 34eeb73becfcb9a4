"""Calls empty_cache and reads the allocator whether or not CUDA is there: on a CPU-only
build they quietly give 0, but with the driver present and is_available() turned off they
initialise CUDA.

Caught by: test_zeros_without_cuda
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
    device = torch.device(device)
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return max(0, int(torch.cuda.max_memory_allocated(device)) - before)


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Delete container[k] for k in keys, gc.collect(), torch.cuda.empty_cache(); return (memory_allocated, memory_reserved) afterwards ((0, 0) without CUDA)."""
    for key in keys:
        del container[key]
    gc.collect()
    torch.cuda.empty_cache()
    allocated, reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    if not torch.cuda.is_available():
        return (0, 0)
    return (int(allocated), int(reserved))
