"""What one worker may use. No torch here: the CLI imports this without paying for torch."""

from __future__ import annotations

import os
from dataclasses import dataclass

GiB = 1 << 30
MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one worker may use. Memory is enforced by rlimit and by a resident-size watchdog."""

    memory_bytes: int = 4 * GiB
    file_size_bytes: int = 256 * MiB
    processes: int = 256
    output_bytes: int = 4 * MiB
    open_files: int = 1024

    def rlimits(self, cuda: bool) -> dict[str, int]:
        limits = {"RLIMIT_FSIZE": self.file_size_bytes, "RLIMIT_CORE": 0, "RLIMIT_NOFILE": self.open_files}
        if os.geteuid() != 0:  # root ignores RLIMIT_NPROC; the docker runtime's pids limit covers it
            limits["RLIMIT_NPROC"] = self.processes
        if not cuda:  # the CUDA driver maps huge private regions: rely on the watchdog there
            limits["RLIMIT_DATA"] = self.memory_bytes
        return limits
