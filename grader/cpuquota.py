"""A slow machine on purpose: run a command under a CPU quota (cgroup v1's cpu controller).

Tests and benchmarks use it to prove that no verdict depends on how busy the machine is: the same
answers are graded unconstrained and under, say, half a core with busy loops beside them.

    from grader.cpuquota import CpuQuota
    with CpuQuota(0.5) as quota:             # half a core; needs root and /sys/fs/cgroup/cpu
        subprocess.run(cmd, preexec_fn=quota.enter)

`enter` (a preexec_fn) moves the new process into the group before it runs anything; its children
inherit the group. The group is removed on exit once its processes have ended (the caller ends
them). `available()` says whether quotas can be made here.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

CPU_CONTROLLER = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000


def available() -> bool:
    return (CPU_CONTROLLER / "cgroup.procs").exists() and os.access(CPU_CONTROLLER, os.W_OK)


class CpuQuota:
    def __init__(self, cores: float, name: str = "grader-quota"):
        self.cores = cores
        self.path = CPU_CONTROLLER / f"{name}-{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> CpuQuota:
        if not available():
            raise OSError("no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu (it needs root)")
        self.path.mkdir()
        (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (self.path / "cpu.cfs_quota_us").write_text(str(max(1000, int(self.cores * PERIOD_US))))
        return self

    def enter(self) -> None:
        """Move the calling process into the group (as a subprocess's preexec_fn)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def __exit__(self, *exc: object) -> None:
        for _ in range(300):
            try:
                if not (self.path / "cgroup.procs").read_text().split():
                    break
            except OSError:
                return
            time.sleep(0.1)
        try:
            self.path.rmdir()
        except OSError:
            pass
