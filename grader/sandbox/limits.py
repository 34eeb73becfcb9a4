"""What one worker may use. No torch here: the CLI imports this without paying for torch."""

from __future__ import annotations

import os
from dataclasses import dataclass

GiB = 1 << 30
MiB = 1 << 20
# A worker holds torch before it runs a line of the candidate's code: measured with torch 2.13 on
# CPU, one needs 0.25 GiB to import a submission (0.2 fails). Under this floor every check would
# fail for the grader's configuration, never the candidate's code: such a limit is refused.
MIN_MEMORY_GB = 0.5


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
