"""Resident memory over a worker's process tree, read from /proc.

Used by the judge (the local runtime, where it may read its workers' /proc files) and by the fork
server (in the container, where the judge runs as another user than the workers and the kernel
hides their `smaps_rollup` from it: it would count every child of a worker as 0 bytes). Imports
nothing heavy: the fork server imports it before forking workers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found += [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            continue
    return found


def descendants(roots: list[int], seen: set[int]) -> Iterator[int]:
    """`roots` and every process below them, each once, read from /proc as the walk goes; `seen`
    (pids to skip) is extended with each one given."""
    pending = list(roots)
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        yield pid
        pending += children(pid)


def _proportional_size(pid: int) -> int:
    """Pss: pages shared with the worker (forked children share torch's) count in proportion."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def tree_memory(worker: int, fork_server: int | None, others: set[int] | frozenset[int] = frozenset(),
                budget_s: float = 0.5) -> tuple[int | None, int]:
    """(bytes, processes) of the worker and every process it started: its descendants, and the
    fork server's other children (orphans reparent there: it is a child subreaper). The worker
    counts its resident size, the others their proportional size. (None, 0) when the worker is
    gone. `others`: the fork server's other live workers (a check's verifier), not counted.

    `budget_s`: past it, processes are still counted but their memory is no longer read. Reading
    `smaps_rollup` waits for the process's memory map lock, which a process that forks in a loop
    (a fork bomb: each fork copies the map, and fails only at the pids limit afterwards) holds
    most of the time: unbounded, one reading took longer than the check's time limit."""
    deadline = time.monotonic() + budget_s
    try:
        with open(f"/proc/{worker}/statm") as fh:
            used = int(fh.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return None, 0
    seen = {worker, *others}
    roots = children(worker) + ([c for c in children(fork_server) if c != worker] if fork_server else [])
    for pid in descendants(roots, seen):
        if time.monotonic() < deadline:
            used += _proportional_size(pid)
    return used, len(seen) - len(others)


def _faults(pid: int | str) -> tuple[int, int]:
    """(page faults of `pid` itself, page faults of the children it has reaped), minor and major
    together, from /proc/PID/stat (a zombie's still reads); (0, 0) when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rfind(b")") + 2:].split()
        # minflt cminflt majflt cmajflt: the 10th to 13th fields of stat, 8-11 after the name
        return int(fields[7]) + int(fields[9]), int(fields[8]) + int(fields[10])
    except (OSError, ValueError, IndexError):
        return 0, 0


def children_faults(worker: int) -> int:
    """Page faults of every process the worker started, live, zombie or reaped by it: each page a
    child first touches (a fresh page, or its copy of one it shares with the worker) is a fault,
    so faults x page size is memory the children wrote, however briefly. The worker is a child
    subreaper (orphaned grandchildren come back to it) and cannot stop being one, nor turn on
    transparent huge pages (one fault for 2 MiB): both refused by its seccomp filter."""
    return _faults(worker)[1] + sum(sum(_faults(pid)) for pid in descendants(children(worker), {worker}))
