"""perf_counter_ns and numpy on the CPU; on CUDA events made one pair at a time and read after
the end event's own synchronize (lower median: numpy's median of an even count averages too)."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import time as clock


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Call fn warmup times, then time iters calls (CUDA: synchronize around the timed region or use CUDA events); return {'mean_ms', 'median_ms', 'min_ms'} per call."""
    on_gpu = str(device).startswith("cuda")
    count = 0
    while count < warmup:
        fn()
        count += 1
    ms = np.empty(iters, dtype=np.float64)
    for i in range(iters):
        if on_gpu:
            begin, finish = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            fn()
            finish.record()
            finish.synchronize()
            ms[i] = begin.elapsed_time(finish)
        else:
            t0 = clock.perf_counter_ns()
            fn()
            ms[i] = (clock.perf_counter_ns() - t0) / 1e6
    return {"mean_ms": float(ms.mean()), "median_ms": float(np.median(ms)), "min_ms": float(ms.min())}
