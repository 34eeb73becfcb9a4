"""Memory a call materialises, measured as a delta around it in the worker's own process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def peak_rss_delta(fn: Callable, *args: Any, **kwargs: Any) -> tuple[int, Any]:
    """(bytes the process's peak resident size grew by during `fn(*args, **kwargs)`, its result).
    The kernel's high-water mark is reset first (/proc/self/clear_refs), so memory touched before
    the call (ballast at import) does not hide what the call itself materialises."""
    def high_water() -> int:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def resident() -> int:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE")

    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    before = resident()
    result = fn(*args, **kwargs)
    return max(0, high_water() - before), result
