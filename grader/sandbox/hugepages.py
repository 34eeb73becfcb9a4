"""The fork server's memory as huge pages, so that forking a worker and its exit cost little.

After importing torch the fork server holds about 200 MB of private anonymous memory (the malloc
heap, Python's objects). Every fork copies a page-table entry for each of its 4 KiB pages and every
worker's exit takes them down again: perf showed those two as a sixth of `grader validate`'s CPU.
`MADV_COLLAPSE` (Linux 6.1+) turns the populated ranges into 2 MiB transparent huge pages once, in
the fork server, before any worker exists: a fork then copies one entry per 2 MiB, and a worker's
write to a shared huge page copies only the 4 KiB it touches (the kernel splits the mapping on
copy-on-write). Measured on this machine: fork + exit of the warmed fork server 30.6 ms -> 6.6 ms.

It is an optimisation only: nothing about isolation changes, the regions' own flags are left as
they were (memory the workers allocate later is paged as before), and a kernel without
MADV_COLLAPSE (older Linux, gVisor) or THP disabled leaves everything as it is.
`GRADER_HUGEPAGES=0` turns it off (to compare).
"""

from __future__ import annotations

import ctypes
import os
import re

from grader.sandbox.libc import libc

MADV_COLLAPSE = 25
HUGE = 2 << 20
_ANON = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) rw-p 00000000 00:00 0\s*(\[heap\])?\s*$")


def anonymous_regions(maps: str) -> list[tuple[int, int]]:
    """The private, writable, anonymous ranges of a /proc/PID/maps text (the heap included), cut to
    whole huge pages; ranges smaller than one huge page are left out."""
    regions = []
    for line in maps.splitlines():
        m = _ANON.match(line)
        if not m:
            continue
        start, end = int(m.group(1), 16), int(m.group(2), 16)
        start, end = (start + HUGE - 1) & ~(HUGE - 1), end & ~(HUGE - 1)
        if end > start:
            regions.append((start, end))
    return regions


CHUNK = 8 << 20  # collapsed a piece at a time (about 15 ms each), between the judge's requests


class Collapser:
    """Collapse this process's populated anonymous memory into huge pages a piece at a time
    (`step`), so that a fork server can answer "ready" first and collapse while it waits for
    requests: done up front it was 0.3 s on the critical path of every judge's first check."""

    def __init__(self):
        self.pending: list[tuple[int, int]] = []
        self.done = self.total = 0
        self.errors: set[str] = set()
        self.skipped = None
        if os.environ.get("GRADER_HUGEPAGES", "1") == "0":
            self.skipped = "off (GRADER_HUGEPAGES=0)"
            return
        try:
            with open("/proc/self/maps") as fh:
                regions = anonymous_regions(fh.read())
            self.libc = libc()
        except OSError as exc:
            self.skipped = f"not available: {exc}"
            return
        self.libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        for start, end in regions:
            self.total += end - start
            self.pending += [(s, min(s + CHUNK, end)) for s in range(start, end, CHUNK)]
        self.pending.reverse()  # popped from the end: lowest addresses first

    def step(self) -> bool:
        """Collapse one piece; False once nothing is left."""
        if not self.pending:
            return False
        start, end = self.pending.pop()
        if self.libc.madvise(start, end - start, MADV_COLLAPSE) == 0:
            self.done += end - start
        else:  # EINVAL: no MADV_COLLAPSE here, or a range that cannot be (VM_NOHUGEPAGE, special)
            self.errors.add(os.strerror(ctypes.get_errno()))
        return bool(self.pending)

    def summary(self) -> str:
        if self.skipped:
            return self.skipped
        summary = f"{self.done >> 20} MiB of {self.total >> 20} MiB collapsed into huge pages"
        if self.pending:
            summary += f" ({sum(e - s for s, e in self.pending) >> 20} MiB still to do, while idle)"
        return summary + (f" ({', '.join(sorted(self.errors))} for the rest)" if self.errors else "")


def collapse_anonymous_memory() -> str:
    """Collapse this process's populated anonymous memory into huge pages now; says what was done."""
    collapser = Collapser()
    while collapser.step():
        pass
    return collapser.summary()
