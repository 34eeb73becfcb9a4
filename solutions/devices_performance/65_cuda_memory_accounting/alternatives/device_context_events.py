"""Selects the measured device with `with torch.cuda.device(dev):` around the allocator calls (not
around `fn`: the current device `fn` sees is the caller's), waits for `fn`'s work with an event
recorded on that device's current stream, and uses `torch.cuda.init()` and the device-switching
pair `set_device` / `current_device` (restored) in `free_and_report`. All valid: the faked CUDA
machine models these calls (issue 42: `set_device` and `init` used to fail it as "called itself").
"""
from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor


def peak_memory_bytes(fn: Callable[[], Any], device: torch.device | str = "cuda") -> int:
    """Peak CUDA bytes allocated on `device` while fn() ran, above the level just before the call."""
    if not torch.cuda.is_available():
        return 0
    dev = torch.device(device)
    with torch.cuda.device(dev):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
    fn()
    with torch.cuda.device(dev):
        done = torch.cuda.Event()
        done.record(torch.cuda.current_stream())
        done.synchronize()
        peak = torch.cuda.max_memory_allocated()
    return max(0, int(peak) - int(before))


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Remove `keys` from `container`, release what nothing references, empty the cache; (allocated, reserved)."""
    for key in keys:
        container.pop(key)
    gc.collect()
    if not torch.cuda.is_available():
        return (0, 0)
    torch.cuda.init()
    here = torch.cuda.current_device()
    torch.cuda.set_device(here)  # a no-op switch, restored: the current device is not changed
    torch.cuda.empty_cache()
    return (int(torch.cuda.memory_allocated(here)), int(torch.cuda.memory_reserved(here)))
