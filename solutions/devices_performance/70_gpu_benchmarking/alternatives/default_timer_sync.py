"""perf_counter through timeit.default_timer, a synchronisation before and after each timed call
on CUDA, statistics with sorting by hand."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
from timeit import default_timer


def _wait(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Call fn warmup times, then time iters calls (CUDA: synchronize around the timed region or use CUDA events); return {'mean_ms', 'median_ms', 'min_ms'} per call."""
    device = torch.device(device)
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(iters):
        _wait(device)
        t0 = default_timer()
        fn()
        _wait(device)
        samples.append(1e3 * (default_timer() - t0))
    ordered = sorted(samples)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {"mean_ms": sum(ordered) / n, "median_ms": median, "min_ms": ordered[0]}
