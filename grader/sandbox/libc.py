"""The C library through ctypes, loaded once per process: `ctypes.CDLL` costs 40 µs, and a worker
sandboxing itself asked for it about fifteen times (0.6 ms of every check). The fork server loads it
before it forks, so a worker takes no loader lock that another thread may hold. `prctl` sets one of
a process's own options where the platform has them."""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


PR_SET_PDEATHSIG = 1


def prctl(option: int, value: int) -> None:
    """prctl(2) with one argument (`PR_SET_PDEATHSIG`...), where there is one."""
    try:
        libc().prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: no death signal, no subreaper
