"""What one worker may use. No torch here: the CLI imports this without paying for torch."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

GiB = 1 << 30
MiB = 1 << 20
# A worker holds torch before it runs a line of the candidate's code: measured with torch 2.13 on
# CPU, one needs 0.25 GiB to import a submission (0.2 fails). Under this floor every check would
# fail for the grader's configuration, never the candidate's code: such a limit is refused.
MIN_MEMORY_GB = 0.5
# How long a check may last on the wall clock, for a CPU time limit of `limit` seconds: what stops
# code that sleeps or blocks (which uses no CPU), generous enough that a loaded machine reaches it
# only when it gives the worker less than about a third of a core.
BACKSTOP_FACTOR, BACKSTOP_EXTRA_S = 3.0, 10.0


def backstop_s(limit: float) -> float:
    """The wall-clock backstop of a check whose CPU time limit is `limit` seconds."""
    return BACKSTOP_FACTOR * limit + BACKSTOP_EXTRA_S


@dataclass(frozen=True)
class Limits:
    """What one worker may use. Memory is enforced by rlimit and by a resident-size watchdog."""

    memory_bytes: int = 4 * GiB
    file_size_bytes: int = 256 * MiB
    processes: int = 256
    output_bytes: int = 4 * MiB
    open_files: int = 1024
    # Fields set on purpose (the CLI's --memory-gb): an exercise's [limits] does not override them.
    explicit: tuple[str, ...] = ()

    def for_exercise(self, overrides: dict[str, int]) -> Limits:
        """These limits with an exercise's [limits] applied, except where set on purpose
        (resolution order: CLI > exercise.toml > default)."""
        chosen = {k: v for k, v in overrides.items() if k not in self.explicit and k in _FIELDS}
        return replace(self, **chosen) if chosen else self

    def rlimits(self, cuda: bool) -> dict[str, int]:
        limits = {"RLIMIT_FSIZE": self.file_size_bytes, "RLIMIT_CORE": 0, "RLIMIT_NOFILE": self.open_files}
        if os.geteuid() != 0:  # root ignores RLIMIT_NPROC; the docker runtime's pids limit covers it
            limits["RLIMIT_NPROC"] = self.processes
        if not cuda:  # the CUDA driver maps huge private regions: rely on the watchdog there
            limits["RLIMIT_DATA"] = self.memory_bytes
        return limits


_FIELDS = ("memory_bytes", "file_size_bytes", "processes", "output_bytes", "open_files")
