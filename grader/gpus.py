"""GPU pinning for batch grading in Docker: a pool of device ids handed out to containers.

With several GPUs and `--jobs N`, each container that grades GPU exercises gets its own
`--gpus-per-job` devices (default one) through `device_requests` with `device_ids`; two
submissions never share a GPU unless asked (`--gpus-per-job 0.5`: two jobs per GPU). A submission
whose exercises need no GPU takes none from the pool.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from grader.errors import UsageError


def visible_gpus(timeout_s: float = 10.0) -> list[str]:
    """The host's GPU indices as `nvidia-smi` lists them; [] without a driver (as here)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip().isdigit()] if out.returncode == 0 else []


class GpuPool:
    """A blocking pool of GPU ids. `acquire(n)` waits until n ids are free and hands out the
    lowest free ones (so jobs rotate over the devices as they finish); `release` returns them.
    `share` > 1 lets that many jobs hold the same device at once (`--gpus-per-job` below 1)."""

    def __init__(self, ids: list[str], share: int = 1):
        if share < 1:
            raise ValueError("share must be >= 1")
        self.ids = list(ids)
        self.share = share
        self._holders = {i: 0 for i in self.ids}
        self._cond = threading.Condition()

    def __len__(self) -> int:
        return len(self.ids)

    def acquire(self, count: int = 1, timeout_s: float | None = None) -> list[str]:
        if count > len(self.ids):
            raise UsageError(f"a job asks for {count} GPUs but only {len(self.ids)} are there "
                             f"({', '.join(self.ids) or 'none'}): lower --gpus-per-job")
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._free()) >= count, timeout=timeout_s):
                raise TimeoutError(f"no {count} free GPUs within {timeout_s} s")
            taken = self._free()[:count]
            for i in taken:
                self._holders[i] += 1
            return taken

    def release(self, ids: list[str]) -> None:
        with self._cond:
            for i in ids:
                if self._holders.get(i, 0) <= 0:
                    raise ValueError(f"GPU {i} released but not held")
                self._holders[i] -= 1
            self._cond.notify_all()

    @contextmanager
    def held(self, count: int = 1) -> Iterator[list[str]]:
        ids = self.acquire(count)
        try:
            yield ids
        finally:
            self.release(ids)

    def in_use(self) -> dict[str, int]:
        with self._cond:
            return dict(self._holders)

    def _free(self) -> list[str]:
        # least-shared first, then by id: a device is reused only when every device is as busy
        free = [i for i in self.ids if self._holders[i] < self.share]
        return sorted(free, key=lambda i: (self._holders[i], self.ids.index(i)))


def pool_for(gpus_mode: str, ids: tuple[str, ...], gpus_per_job: float,
             discover=visible_gpus) -> tuple[GpuPool | None, int]:
    """The pool for a batch and how many ids a job takes: from `--gpus ids` the named devices,
    from `auto`/`all` the host's devices (none found: no pool, containers ask as before).
    `gpus_per_job` below 1 (0.5: two jobs per GPU) shares devices; above 1 must be whole."""
    if gpus_mode == "none":
        return None, 0
    found = list(ids) if gpus_mode == "ids" else discover()
    if not found:
        return None, 0
    if gpus_per_job <= 0:
        raise UsageError("--gpus-per-job must be above 0")
    if gpus_per_job < 1:
        share = round(1 / gpus_per_job)
        return GpuPool(found, share=share), 1
    if gpus_per_job != int(gpus_per_job):
        raise UsageError("--gpus-per-job above 1 must be a whole number of GPUs")
    return GpuPool(found), int(gpus_per_job)
