"""`memory_stats()` for the baseline and the peak, the current stream synchronised, a dict
comprehension that rebuilds the container in place.
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
    stream = torch.cuda.current_stream(device)  # the stream of the device measured, not the current one
    stream.synchronize()
    baseline = torch.cuda.memory_stats(device).get("allocated_bytes.all.current", 0)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    stream.synchronize()
    peak = torch.cuda.memory_stats(device).get("allocated_bytes.all.peak", 0)
    return int(max(peak - baseline, 0))


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Delete container[k] for k in keys, gc.collect(), torch.cuda.empty_cache(); return (memory_allocated, memory_reserved) afterwards ((0, 0) without CUDA)."""
    drop = set(keys)
    kept = {k: v for k, v in container.items() if k not in drop}
    container.clear()
    container.update(kept)
    del kept
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        stats = torch.cuda.memory_stats()
        return int(stats.get("allocated_bytes.all.current", 0)), int(stats.get("reserved_bytes.all.current", 0))
    return 0, 0
