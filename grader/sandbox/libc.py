"""The C library through ctypes, loaded once per process: `ctypes.CDLL` costs 40 µs, and a worker
sandboxing itself asked for it about fifteen times (0.6 ms of every check). The fork server loads it
before it forks, so a worker takes no loader lock that another thread may hold."""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)
