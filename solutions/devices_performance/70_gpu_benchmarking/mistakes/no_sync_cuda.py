"""Times the CUDA path like the CPU one, with perf_counter and no synchronisation: it measures
how long the launches take, not the kernels.

Caught by: test_cuda_path_synchronises, test_cuda_sleep_kernel, test_cuda_sync_spy
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
    for _ in range(iters):
        begin = time.perf_counter()
        fn()
        times.append((time.perf_counter() - begin) * 1000.0)
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times), "min_ms": min(times)}
