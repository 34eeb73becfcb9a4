"""Reports seconds per call, forgetting the conversion to milliseconds.

Caught by: test_sleep_statistics, test_per_call_statistics
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
import statistics
import time


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Call fn warmup times, then time iters calls (CUDA: synchronize around the timed region or use CUDA events); return {'mean_ms', 'median_ms', 'min_ms'} per call."""
    dev = torch.device(device)
    for _ in range(warmup):
        fn()
    times: list[float] = []
    if dev.type == "cuda":
        torch.cuda.synchronize()  # the warmup's kernels must not run into the timed region
        pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in pairs:
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()  # every end event has happened before it is read
        times = [start.elapsed_time(end) for start, end in pairs]
    else:
        for _ in range(iters):
            begin = time.perf_counter()
            fn()
            times.append(time.perf_counter() - begin)
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times), "min_ms": min(times)}
