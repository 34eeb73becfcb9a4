"""Enters `with torch.cuda.device(dev):` around the CUDA path and uses what a careful benchmark
reaches for there: the device's current stream (`current_stream(dev)`, recorded on explicitly),
`Event(enable_timing=True, blocking=True)` keyword arguments, `synchronize(dev)` with a device,
`set_device`/`current_device`, and an event's own `synchronize`. All valid: the simulated CUDA path
on a CPU host models these calls (issue 42: `torch.cuda.device` used to fail it as
"torch.cuda._lazy_init is not allowed").
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import torch


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Call fn warmup times, then time iters calls; return {'mean_ms', 'median_ms', 'min_ms'} per call."""
    dev = torch.device(device)
    times: list[float] = []
    if dev.type != "cuda":
        for _ in range(warmup):
            fn()
        for _ in range(iters):
            begin = time.perf_counter()
            fn()
            times.append((time.perf_counter() - begin) * 1000.0)
    else:
        with torch.cuda.device(dev):
            torch.cuda.set_device(torch.cuda.current_device())   # the device the context selected
            stream = torch.cuda.current_stream(dev)
            for _ in range(warmup):
                fn()
            torch.cuda.synchronize(dev)
            for _ in range(iters):
                start = torch.cuda.Event(enable_timing=True, blocking=True)
                end = torch.cuda.Event(enable_timing=True, blocking=True)
                start.record(stream)
                fn()
                end.record(stream)
                end.synchronize()
                times.append(start.elapsed_time(end))
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times), "min_ms": min(times)}
