"""CPU time over a worker's process tree, read from /proc by the judge (outside the worker).

A verdict that rests on time must not move with the machine's load (other submissions graded
beside it, a CI runner's neighbours, a CPU quota). Wall time does: a check that needs 10 s of CPU
takes 50 s on a machine that gives it a fifth of a core. So the judge limits and measures the CPU
the worker's processes got, which load does not change, read where the candidate cannot rewrite
it (the kernel's accounting in /proc):

- `total_s`: every process of the tree, threads and reaped children included (utime, stime,
  cutime, cstime of /proc/PID/stat);
- `busiest_s`: the live thread that ran longest: a single-threaded loop's time as an idle
  machine's wall clock would show it, and a multi-threaded kernel's too (each of its threads runs
  about as long as the call lasts);
- `waiting_s`: what the tree's live threads spent runnable but waiting for a CPU (the run queue,
  /proc/PID/task/TID/schedstat): the mark of an overloaded machine. A worker that sleeps or blocks
  waits for nothing; one starved by other processes waits most of the time.

Imports nothing heavy: the fork server imports it before forking workers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from grader.sandbox.treemem import children, descendants

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class CpuSample:
    total_s: float = 0.0
    busiest_s: float = 0.0
    waiting_s: float = 0.0

    def since(self, start: CpuSample | None) -> CpuSample:
        """What was used after `start` (the busiest thread's time is its own: threads come and go)."""
        if start is None:
            return self
        return CpuSample(max(0.0, self.total_s - start.total_s), self.busiest_s,
                         max(0.0, self.waiting_s - start.waiting_s))

    def effective_s(self, cores: int) -> float:
        """The seconds an idle machine would have taken, at least: the busiest thread's time, or
        the whole tree's spread over the cores it may use, whichever is longer."""
        return max(self.busiest_s, self.total_s / max(1, cores))


def _stat_times(path: str) -> list[int] | None:
    """utime, stime, cutime, cstime (ticks) of a /proc/.../stat file."""
    try:
        with open(path) as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return [int(fields[i]) for i in (11, 12, 13, 14)]  # fields 14-17, counted from 1, after pid and comm
    except (OSError, ValueError, IndexError):
        return None


def _schedstat_wait(path: str) -> int:
    try:
        with open(path) as fh:
            return int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def tree_cpu(worker: int, fork_server: int | None = None,
             others: set[int] | frozenset[int] = frozenset()) -> CpuSample | None:
    """The CPU of `worker` and every process it started (its descendants, and the fork server's
    other children: orphans reparent there), None when the worker is gone. `others`: the fork
    server's other live workers, not counted."""
    total = busiest = 0
    waiting = 0
    found = False
    for pid in _tree(worker, fork_server, others):
        times = _stat_times(f"/proc/{pid}/stat")
        if times is None:
            continue
        found = found or pid == worker
        total += sum(times)
        for tid in _threads(pid):
            thread = _stat_times(f"/proc/{pid}/task/{tid}/stat")
            if thread is not None:
                busiest = max(busiest, thread[0] + thread[1])
            waiting += _schedstat_wait(f"/proc/{pid}/task/{tid}/schedstat")
    if not found:
        return None
    return CpuSample(total / TICK, busiest / TICK, waiting / 1e9)


def waiting_threads(worker: int, fork_server: int | None = None, others: set[int] | frozenset[int] = frozenset(),
                    min_s: float = 0.0) -> int:
    """How many live threads of the worker's tree have waited at least `min_s` seconds for a CPU."""
    return sum(_schedstat_wait(f"/proc/{pid}/task/{tid}/schedstat") / 1e9 >= min_s
               for pid in _tree(worker, fork_server, others) for tid in _threads(pid))


def _tree(worker: int, fork_server: int | None, others: set[int] | frozenset[int]):
    """`worker`, its descendants and the fork server's other children (orphans reparent there),
    but not `others` (the fork server's other live workers) nor what they started."""
    roots = [worker] + ([c for c in children(fork_server) if c != worker] if fork_server else [])
    return descendants(roots, {*others})


def _threads(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


@dataclass(frozen=True)
class Machine:
    """What the machine around a worker was doing, read at one moment: the CPU-seconds every CPU
    has been busy (/proc/stat: the whole machine, in a container too), and the worker's CPU
    cgroup's quota (cores) and the seconds it has been throttled by it (cgroup v1 or v2)."""

    at: float
    busy_s: float | None = None
    quota: float | None = None
    throttled_s: float | None = None


def machine(pid: int) -> Machine:
    import time

    return Machine(time.monotonic(), _busy_s(), *_cgroup_cpu(pid))


def _busy_s() -> float | None:
    try:
        with open("/proc/stat") as fh:
            fields = [int(v) for v in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / TICK


def _cgroup_cpu(pid: int) -> tuple[float | None, float | None]:
    """(quota in cores or None, seconds throttled or None) of `pid`'s CPU cgroup."""
    try:
        with open(f"/proc/{pid}/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None, None
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        v1 = "cpu" in controllers.split(",")
        if not v1 and controllers != "":
            continue
        bases = ([f"/sys/fs/cgroup/cpu{path}", "/sys/fs/cgroup/cpu", f"/sys/fs/cgroup/cpu,cpuacct{path}"] if v1
                 else [f"/sys/fs/cgroup{path}", "/sys/fs/cgroup"])
        for base in bases:
            found = _read_cgroup(base.rstrip("/"), v1)
            if found is not None:
                return found
    return None, None


def _read_cgroup(base: str, v1: bool) -> tuple[float | None, float | None] | None:
    try:
        with open(f"{base}/cpu.stat") as fh:
            stat = dict(line.split() for line in fh if len(line.split()) == 2)
        if v1:
            with open(f"{base}/cpu.cfs_quota_us") as fh:
                quota_us = int(fh.read())
            with open(f"{base}/cpu.cfs_period_us") as fh:
                period_us = int(fh.read())
            throttled = int(stat.get("throttled_time", 0)) / 1e9
        else:
            with open(f"{base}/cpu.max") as fh:
                raw_quota, raw_period = (fh.read().split() + ["100000"])[:2]
            quota_us = -1 if raw_quota == "max" else int(raw_quota)
            period_us = int(raw_period)
            throttled = int(stat.get("throttled_usec", 0)) / 1e6
    except (OSError, ValueError):
        return None
    return (quota_us / period_us if quota_us > 0 and period_us > 0 else None), throttled


def cores() -> int:
    """The CPUs this process may run on (a container's or a task set's), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
