"""Attack: exercise 70 asks for time.perf_counter on the CPU path, checked statically and by spies on
the clocks (time.time must not be read). This benchmark times with time.time, taken at import
under a name built at run time and kept in a list, and reads time.perf_counter twice for show.
Honest baseline: every check but the clock check (the figures are right).
Expected: the clock check fails: the call watch sees the builtin time.time called from the
candidate's code, whatever reference it was called through.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

_CLOCK = [getattr(time, "ti" + "me")]


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    dev = torch.device(device)
    for _ in range(warmup):
        fn()
    times: list[float] = []
    if dev.type == "cuda":
        torch.cuda.synchronize()
        pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in pairs:
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        times = [start.elapsed_time(end) for start, end in pairs]
    else:
        time.perf_counter(), time.perf_counter()  # for whoever counts
        for _ in range(iters):
            begin = _CLOCK[0]()
            fn()
            times.append((_CLOCK[0]() - begin) * 1000.0)
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times), "min_ms": min(times)}
