"""A dict's version tag, read without touching the dict's objects (CPython's PEP 509 field).

    from grader.sandbox.dictversion import version_reader
    read = version_reader()  # None where this interpreter has no usable tag
    if read is not None:
        before = read(id(d))
        ...
        changed = read(id(d)) != before

CPython gives every dict a 64-bit version that changes whenever an entry is added, removed or
rebound (`ma_version_tag`, PEP 509; kept in 3.12 and 3.13 with a watcher count in its low bits).
Reading it through ctypes writes nothing to the dict, its keys or its values, which matters in a
forked worker: comparing the tamper guard's 4,000 watched attributes one by one takes a reference
to each (a write to its reference count), so every page that holds one was copied on write, ~1,150
page faults and ~7 ms in each worker (`TamperGuard.changed`). The layout is proven on this very
interpreter before it is trusted: a dict's size must sit in the field before the tag, and the tag
must change when that dict changes and only then; anything else (another implementation, a
free-threaded build, a Python whose tag no longer counts changes) gets None, and the guard compares
every attribute as before.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

_SIZE = ctypes.sizeof(ctypes.c_ssize_t)
_USED = 2 * _SIZE  # PyObject_HEAD (refcount, type), then ma_used
_TAG = 3 * _SIZE  # then ma_version_tag


def _read(address: int) -> int:
    return ctypes.c_uint64.from_address(address + _TAG).value


def version_reader() -> Callable[[int], int] | None:
    """`read(id(d))` -> d's version tag, or None where the tag cannot be relied on here."""
    if sys.implementation.name != "cpython" or _SIZE != 8 or not getattr(sys, "_is_gil_enabled", lambda: True)():
        return None
    mine: dict[str, int] = {}
    other: dict[str, int] = {}
    used = ctypes.c_ssize_t.from_address(id(mine) + _USED)
    try:
        seen = [_read(id(mine))]
        mine["a"] = 1
        seen.append(_read(id(mine)))
        other["b"] = 2  # another dict's change: mine keeps its tag
        seen.append(_read(id(mine)))
        mine["a"] = 2  # a rebinding
        seen.append(_read(id(mine)))
        del mine["a"]
        seen.append(_read(id(mine)))
        mine["c"] = 3
        sizes_match = used.value == len(mine) == 1
    except Exception:  # noqa: BLE001 - whatever the layout, no tag then
        return None
    # changed by each change of its own (added, rebound, removed), unchanged by another dict's
    if not sizes_match or seen[1] != seen[2] or len({seen[0], seen[1], seen[3], seen[4]}) != 4:
        return None
    return _read
