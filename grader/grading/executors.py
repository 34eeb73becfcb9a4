"""Executors schedule `submission.grade_one` over a run's submissions; they grade nothing themselves.

An executor has `run(items, begun, done)` (call `begun(item)` when a submission starts and
`done(item, graded)` when it is graded, from any thread; return when all are done or the run's stop
event is set) and `cancel()` (stop what runs: judges killed, containers removed). `Threads` grades
`jobs` submissions at once on this machine; `grader.grading.ray.RayExecutor` one Ray task each.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import signal
import threading
from collections.abc import Callable

from grader.catalog import Exercise
from grader.grading.options import default_jobs
from grader.grading.submission import Context, WorkItem, grade_one
from grader.resultstore import Graded
from grader.runtimes import Runtime


def uses_gpu(exercises: list[Exercise]) -> bool:
    """Whether grading these exercises wants a GPU (required, or optional: checks that run on CUDA)."""
    return any(ex.gpu in ("required", "optional") for ex in exercises)


class Threads:
    """`jobs` submissions at once on this machine: threads that each wait on one judge process or
    one container (the grading itself runs in those, so threads are enough)."""

    def __init__(self, ctx: Context, runtime: Runtime):
        self.ctx, self.runtime = ctx, runtime
        options = ctx.options
        self.jobs = options.jobs or default_jobs(options.limits.memory_bytes)
        self.pool, self.per_job = None, 0
        if runtime.name == "docker":
            from grader.gpus import pool_for

            self.pool, self.per_job = pool_for(runtime.gpus.mode, runtime.gpus.ids, options.gpus_per_job)

    def cancel(self) -> None:
        self.runtime.cancel()

    @contextlib.contextmanager
    def _gpu(self, exercises: list[Exercise]):
        from grader.runtimes.docker import GpuRequest

        if self.pool is None:
            yield {}
        elif not uses_gpu(exercises):
            yield {"gpus": GpuRequest("none")}  # exercises that need no GPU hold none
        else:
            with self.pool.held(self.per_job) as ids:
                yield {"gpus": GpuRequest("ids", tuple(ids))}

    def run(self, items: list[WorkItem], begun, done) -> None:
        stop = self.ctx.stop
        # cores left over when there are fewer submissions than jobs (one submission: all of them)
        cores = max(1, self.jobs // max(1, len(items)))

        def task(item: WorkItem) -> tuple[WorkItem, Graded | None]:
            if stop.is_set():
                return item, None
            begun(item)
            return item, grade_one(item, self.ctx, self.runtime, self._gpu, cores=cores)

        with cf.ThreadPoolExecutor(max_workers=max(1, self.jobs), thread_name_prefix="grade") as pool:
            pending = {pool.submit(task, item) for item in items}
            try:
                while pending:
                    finished, pending = cf.wait(pending, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                    for future in finished:
                        item, graded = future.result()
                        if graded is not None and not stop.is_set():
                            done(item, graded)
                    if stop.is_set():
                        break
            finally:
                if stop.is_set() or pending:
                    stop.set()
                    for future in pending:
                        future.cancel()
                    self.runtime.cancel()


@contextlib.contextmanager
def signals_stop(stop: threading.Event, cancel: Callable[[], None], enabled: bool):
    """SIGINT and SIGTERM set `stop` and cancel what runs, instead of raising mid-way."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        if not stop.is_set():
            stop.set()
            threading.Thread(target=cancel, daemon=True).start()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
