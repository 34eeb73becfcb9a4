"""What a grading run is asked to do: `GradeOptions`, with every default defined here once. The CLI
reads its defaults from `DEFAULTS`, so `grader grade` and `grade()` mean the same when nothing is
said."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UsageError
from grader.sandbox.limits import MIN_MEMORY_GB, Limits

RUNTIMES = ("auto", "local", "docker", "ray")
NODE_RUNTIMES = ("docker", "local")
VISIBILITIES = ("all", "public", "hidden")
VISIBILITY_FILES = {"all": ("test_public.py", "test_hidden.py"), "public": ("test_public.py",),
                    "hidden": ("test_hidden.py",)}
PER_JOB_OVERHEAD = 2 << 30  # besides the worker's memory limit: the judge, the fork server, the container


@dataclass
class GradeOptions:
    """How to grade. Every caller (the CLI, Python, a Ray node) grades through `grade_with` with one."""

    exercises: list[str] | None = None  # refs; None: every exercise with a file in the submission
    # auto: docker when a daemon answers and the grading image (built from this checkout) exists, else
    # local with a warning; local: subprocesses here; docker: a container per submission; ray: a Ray
    # task per submission running `node_runtime` on its node
    runtime: str = "auto"
    visibility: str = "all"
    timeout_s: float | None = None
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    root: Path | None = None  # the exercises' checkout (None: this one, or GRADER_ROOT)
    runtime_options: dict = field(default_factory=dict)  # docker: image, gpus, require_gpu, allow_stale_image
    pytest_args: list[str] = field(default_factory=list)  # e.g. ["-x"], ["-k", "pairwise"] (grader check)
    # what the candidate's code prints, shown under its failing public checks: for the candidate
    # (`grader check`, `grader watch`), never in a grading run's reports, where printed text could
    # pose as a verdict in front of the interviewer
    capture_output: bool = False
    # how many at once, and where results are kept
    jobs: int | None = None  # submissions graded at once; None: default_jobs()
    results_dir: Path | None = None  # one JSON per graded submission; a rerun grades only the rest
    gpus_per_job: float = 1.0  # docker with several GPUs: GPUs pinned to each container grading GPU exercises
    address: str | None = None  # ray: the cluster (auto, ray://host:10001, host:6379)
    node_runtime: str = "docker"  # ray: what each task runs on its node
    # what the caller is told while grading
    progress: object | None = None  # a grader.progress reporter; None: silent
    on_note: Callable[[str], None] | None = None  # told each runtime warning before grading starts
    handle_signals: bool = True  # SIGINT/SIGTERM stop the run cleanly (main thread only)

    def __post_init__(self) -> None:
        # a folder given as text is a folder: Python callers pass "out" as often as Path("out")
        self.root = Path(self.root) if self.root is not None else None
        self.results_dir = Path(self.results_dir) if self.results_dir is not None else None
        self.exercises = [self.exercises] if isinstance(self.exercises, str) else self.exercises

    def check(self) -> None:
        """Refuse options that cannot work, before anything is graded."""
        for name, value, allowed in (("runtime", self.runtime, RUNTIMES), ("visibility", self.visibility, VISIBILITIES),
                                     ("node_runtime", self.node_runtime, NODE_RUNTIMES)):
            if value not in allowed:
                raise UsageError(f"unknown {name} {value!r}: use one of {', '.join(allowed)}")
        if self.limits.memory_bytes < MIN_MEMORY_GB * (1 << 30):
            raise UsageError(f"a memory limit of {self.limits.memory_bytes / (1 << 30):g} GiB cannot even import "
                             f"torch in a worker: every check would fail for the grader's setting; use at least "
                             f"{MIN_MEMORY_GB:g} GiB")


DEFAULTS = GradeOptions()


def default_jobs(memory_bytes: int, cpus: int | None = None, available: int | None = None) -> int:
    """min(CPUs, available memory / (the worker's limit + the judge's overhead)), at least 1."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if available is None:
        available = _available_memory()
    by_memory = available // (memory_bytes + PER_JOB_OVERHEAD) if available else cpus
    return max(1, min(cpus, int(by_memory)))


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
