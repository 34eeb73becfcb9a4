"""Batch grading: many submissions at once, each in its own judge (local) or container (docker),
or one Ray task each (`--runtime ray`, see grader/runtimes/ray.py).

    from grader.batch import BatchOptions
    from grader.grading import GradeOptions, grade_with
    run = grade_with(paths, GradeOptions(runtime="local", batch=BatchOptions(jobs=2, results_dir="out")))

Contracts:
- the report lists submissions in the order given, whatever order they finish in;
- one submission's failure (an unreadable archive, a container that does not start, a judge killed
  from outside) is reported for that submission, and the batch goes on; a judge or container lost
  to an infrastructure fault is graded once more, then reported as an infrastructure error;
- with `results_dir`, each result is stored as soon as it is graded, and a rerun grades only what
  is missing, changed or ended in an infrastructure error (grader/resultstore.py);
- on SIGINT / SIGTERM (in the main thread) every judge or container still running is stopped and
  removed, and `Interrupted` is raised carrying the run of what finished (the CLI writes its
  reports and exits 130).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import datetime as dt
import os
import platform
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader import __version__, notebooks
from grader.catalog import Catalog, Exercise, require_hidden_tests
from grader.errors import GraderError, Interrupted, RuntimeUnavailable, UsageError
from grader.parallel import judges_for, run_split
from grader.practice.state import read_progress
from grader.results import Environment, GradeRun, SubmissionResult, safe_text
from grader.resultstore import Graded, ResultStore, result_key, settings_digest
from grader.runtimes import JudgeJob, JudgeOutput, Runtime, get_runtime, resolve_runtime
from grader.runtimes.base import Candidate
from grader.submissions import locate, opened, submission_name

PER_JOB_OVERHEAD = 2 << 30  # besides the worker's memory limit: the judge, the fork server, the container


@dataclass
class BatchOptions:
    jobs: int | None = None  # None: default_jobs()
    results_dir: Path | None = None
    gpus_per_job: float = 1.0
    address: str | None = None  # --runtime ray: the cluster (auto, ray://host:10001, host:6379)
    node_runtime: str = "docker"  # --runtime ray: what each task runs on its node
    progress: object | None = None  # a grader.progress reporter; None: silent
    handle_signals: bool = True  # install SIGINT/SIGTERM handlers (main thread only)
    on_note: Callable[[str], None] | None = None  # told of a runtime warning before grading starts


@dataclass
class WorkItem:
    index: int
    path: Path
    label: str
    key: str = ""


@dataclass
class BatchContext:
    """What every submission's grading needs, fixed for the batch."""

    catalog: Catalog
    selected: list[Exercise]
    explicit: bool
    options: object  # grading.GradeOptions
    stop: threading.Event = field(default_factory=threading.Event)


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


def uses_gpu(exercises: list[Exercise]) -> bool:
    """Whether grading these exercises wants a GPU (required, or optional: checks that run on CUDA)."""
    return any(ex.gpu in ("required", "optional") for ex in exercises)


def grade_one(item: WorkItem, ctx: BatchContext, runtime: Runtime, run_kwargs: Callable[[list[Exercise]], object]
              | None = None, single: bool = False, cores: int = 1) -> Graded | None:
    """Grade one submission in its own judge/container; None when the batch was stopped meanwhile.
    `run_kwargs(exercises)` is a context manager yielding extra `runtime.run` arguments (a GPU
    held for the job). With `single`, a submission that cannot be opened raises (one submission
    graded: a usage error) instead of being reported. `cores`: what this submission may use; a
    submission with many exercises is then graded by several judges (containers), each over a
    share of its exercises (`grader.parallel.judges_for`): isolation is unchanged, every check
    still runs in a worker of its own."""
    from grader.grading import build_exercise

    t0 = time.monotonic()
    opts = ctx.options
    try:
        with contextlib.ExitStack() as stack:
            root = stack.enter_context(opened(item.path))
            progress = read_progress(root)  # a --record-progress bundle's record (unverified)
            files = locate(root, ctx.selected, ctx.explicit)
            # notebooks become generated modules; the runtime mounts the folder holding them
            files, judge_root = notebooks.prepare(root, files, ctx.selected, stack)
            if not files:
                raise UsageError(f"{safe_text(str(item.path), newlines=False)}: no exercise files found (looked for e.g. "
                                 f"{ctx.selected[0].layout_path}); name the exercises with --exercises, "
                                 f"or check the layout")
            used = [ex for ex in ctx.selected if ex.id in files]
            job = JudgeJob(root=ctx.catalog.root, exercises=used,
                           candidates=[Candidate(item.label, {k: v.to_spec() for k, v in files.items()},
                                                 str(judge_root))],
                           test_files=_test_files(opts.visibility), limits=opts.limits,
                           timeout_s=opts.timeout_s, seed=opts.seed, capture_output=opts.capture_output,
                           **_optional_job_fields(opts))
            output = None
            for _attempt in range(2):
                if ctx.stop.is_set():
                    return None
                with (run_kwargs(used) if run_kwargs else contextlib.nullcontext({})) as extra:
                    try:
                        output = run_split(runtime, job, judges_for(job, cores), **extra)
                    except GraderError:
                        raise
                    except Exception as exc:  # noqa: BLE001 (the daemon, the container: this submission only)
                        output = JudgeOutput(records=[], error=f"grading infrastructure failed: {exc}",
                                             infrastructure=True)
                if ctx.stop.is_set():
                    return None
                if not output.infrastructure:
                    break
            exercises = tuple(build_exercise(ex, item.label, root, files[ex.id], output) for ex in used)
            if root != Path(item.path).resolve():  # an archive: messages name it, not its temporary folder
                from grader.gradebook import archive_paths

                exercises = archive_paths(exercises, str(root), str(Path(item.path).resolve()))
            error = (f"infrastructure error (graded twice, failed both times): {output.error}"
                     if output.infrastructure else None)
            # an archive's path, never the temporary folder it was unpacked to (gone after grading)
            sub = SubmissionResult(name=item.label, path=str(Path(item.path).resolve()), exercises=exercises,
                                   error=error)
            env = next((r for r in output.records if r.get("type") == "environment"), {})
            environment = {"torch": str(env.get("torch", "")), "cuda": env.get("cuda"),
                           "gpus": list(env.get("gpus", [])), "protections": list(output.protections),
                           "notes": list(output.notes)}
            if progress:
                environment["progress"] = progress
            return Graded(sub, environment, infrastructure=output.infrastructure,
                          duration_s=time.monotonic() - t0)
    except GraderError as exc:
        from grader import grading

        failed = getattr(grading, "failed_exercise", None)  # where a failed submission scores 0 of its asks
        if (single and failed is None) or isinstance(exc, RuntimeUnavailable):  # no daemon, no GPU: every one
            raise
        asked = tuple(failed(ex, str(exc)) for ex in ctx.selected) if failed and ctx.explicit else ()
        return Graded(SubmissionResult(name=item.label, path=str(Path(item.path).resolve()), exercises=asked,
                                       error=str(exc)),
                      duration_s=time.monotonic() - t0)


def _optional_job_fields(opts) -> dict:
    """Grading options that JudgeJob takes where both have them (pytest_args: `grader check -k`)."""
    names = {f.name for f in dataclasses.fields(JudgeJob)}
    return {name: list(getattr(opts, name)) for name in ("pytest_args",)
            if name in names and getattr(opts, name, None)}


def _test_files(visibility: str) -> tuple[str, ...]:
    from grader.grading import VISIBILITY_FILES

    return VISIBILITY_FILES[visibility]


def work_items(paths: list[Path]) -> list[WorkItem]:
    from grader.grading import _unique

    labels: set[str] = set()
    return [WorkItem(i, path, _unique(submission_name(path), labels)) for i, path in enumerate(paths)]


def grade_batch(paths: list[Path], options, batch: BatchOptions) -> GradeRun:
    """Grade `paths` with `options` (a grading.GradeOptions); see the module's contracts."""
    if not paths:
        raise UsageError("no submission given: pass a folder, a .py file, a .zip or a .tar.gz")
    catalog = Catalog.load(options.root)
    ctx = BatchContext(catalog, catalog.select(options.exercises), bool(options.exercises), options)
    started = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    t0 = time.monotonic()
    items = work_items(paths)
    notes: list[str] = []
    if options.runtime == "ray":
        from grader.runtimes.ray import RayBatch

        executor = RayBatch(ctx, batch)
        runtime_name = f"ray ({batch.node_runtime})"
        version = executor.version_tag()
    else:
        runtime_name, warning = _resolve(options, catalog)
        from grader.grading import require_gpu_here

        require_gpu_here(runtime_name, options)  # --require-gpu with no GPU here: before grading anything
        if warning:
            notes.append(warning)
            if batch.on_note is not None:  # e.g. "the local runtime does not hide hidden checks": say it first
                batch.on_note(warning)
        runtime = get_runtime(runtime_name, **(options.runtime_options if runtime_name == "docker" else {}))
        check = getattr(runtime, "check_image", None)
        stale = check(catalog.root) if check else None
        if stale:
            notes.append(stale)
            if batch.on_note is not None:
                batch.on_note(stale)
        if runtime_name == "local" and options.visibility != "public":
            require_hidden_tests(ctx.selected, "Candidates: run `grader check`. Interviewers: grade with the "
                                 "grading image (`--runtime docker`), or from the grader's own repository.")
        executor = ThreadBatch(ctx, runtime, batch, single=len(paths) == 1)
        version = runtime_name
        if runtime_name == "docker":  # a rebuilt image grades again
            version = f"docker/{runtime.client.images.get(runtime.image).id}"
    store = ResultStore(batch.results_dir) if batch.results_dir else None
    results: dict[int, Graded] = {}
    todo = items
    if store is not None:
        settings = settings_digest(ctx.selected, {
            "exercises": sorted(options.exercises or []), "visibility": options.visibility,
            "timeout_s": options.timeout_s, "limits": vars(options.limits), "seed": options.seed,
            "runtime": version})
        todo = []
        for item in items:
            item.key = result_key(item.label, item.path, settings)
            found = store.load(item.label, item.key)
            if found is not None:
                results[item.index] = found
            else:
                todo.append(item)
    if options.runtime != "ray":
        runtime.expect_jobs(len(todo))  # a batch: the local runtime's judge template prepares once for all
    progress = batch.progress
    if progress is not None:
        progress.start(total=len(items), resumed=[g for g in results.values()])
    lock = threading.Lock()

    def done(item: WorkItem, graded: Graded) -> None:
        if store is not None and item.key:
            store.save(item.label, item.key, graded)
        with lock:
            results[item.index] = graded
        if progress is not None:
            progress.finished(item.label, graded)

    def begun(item: WorkItem) -> None:
        if progress is not None:
            progress.started(item.label)

    interrupted = False
    try:
        with _signals_set(ctx.stop, executor.cancel, batch.handle_signals):
            executor.run(todo, begun, done)
        interrupted = ctx.stop.is_set()
    finally:
        if options.runtime != "ray":
            runtime.close()
        if progress is not None:
            progress.close()
    ordered = [results[i] for i in sorted(results)]
    submissions = [g.submission for g in ordered]
    if len(items) > 1 and not ctx.explicit:  # a batch: every submission on the exercises found in any
        from grader.gradebook import same_exercises

        submissions = same_exercises(submissions, [ex.id for ex in catalog.exercises])
    partial = {}
    if interrupted:  # every report says so, and names what was not graded
        partial = {"partial": {"graded": len(ordered), "total": len(items), "not_graded": [
            {"name": item.label, "path": str(Path(item.path).resolve())} for item in items
            if item.index not in results]}}
    run = GradeRun(submissions=tuple(submissions),
                   environment=_environment(runtime_name, ordered, notes, catalog,
                                            options.runtime_options.get("image")),
                   started_at=started, duration_s=time.monotonic() - t0, tool_version=__version__,
                   extra=_extra(ordered, store is not None) | _guides(ordered, catalog) | partial)
    if interrupted:
        raise Interrupted(f"interrupted: {len(ordered)} of {len(items)} submissions graded"
                          + (f"; rerun with --results-dir {batch.results_dir} to grade the rest"
                             if store is not None else ""), run=run)
    return run


def _extra(graded: list[Graded], resumable: bool) -> dict:
    extra: dict = {"resumed": sum(g.resumed for g in graded)} if resumable else {}
    progress = {g.submission.name: g.environment["progress"] for g in graded if g.environment.get("progress")}
    if progress:
        extra["progress"] = progress
    return extra


def _guides(graded: list[Graded], catalog: Catalog) -> dict:
    """The follow-up questions of each graded exercise's interviewer's guide, for the interviewer's
    HTML report (`grader.reports.audience` drops them from the candidate's)."""
    from grader.guides import read_guide

    ids = {ex.id for g in graded for ex in g.submission.exercises}
    follow_ups = {}
    for ex in catalog.exercises:
        guide = read_guide(ex.dir) if ex.id in ids else None
        if guide is not None and guide.follow_ups:
            follow_ups[ex.id] = {"minutes": guide.minutes, "follow_ups": guide.follow_ups, "guide": str(guide.path)}
    return {"guides": follow_ups} if follow_ups else {}


def _resolve(options, catalog: Catalog) -> tuple[str, str | None]:
    """`resolve_runtime`, handing it the checkout's root (the stale-image check) where it takes one."""
    import inspect

    image = options.runtime_options.get("image")
    if "root" in inspect.signature(resolve_runtime).parameters:
        return resolve_runtime(options.runtime, image, catalog.root,
                               bool(options.runtime_options.get("allow_stale_image")))
    return resolve_runtime(options.runtime, image)


def _environment(runtime: str, graded: list[Graded], notes: list[str], catalog: Catalog,
                 image: str | None = None) -> Environment:
    env = next((g.environment for g in graded if g.environment.get("torch")), {})
    all_notes = list(notes)
    for g in graded:
        for note in g.environment.get("notes", []):
            if note not in all_notes:
                all_notes.append(note)
    all_notes += [f"exercise {name} was skipped: {problem}" for name, problem in catalog.problems.items()]
    protections = next((g.environment.get("protections") for g in graded if g.environment.get("protections")), [])
    extra = {}
    if "exercise_root" in {f.name for f in dataclasses.fields(Environment)}:
        extra["exercise_root"] = (str(catalog.root) if runtime == "local" else
                                  f"the grading image {image or 'torch-grader:latest'}" if runtime == "docker"
                                  else f"the Ray nodes ({runtime})")
    return Environment(runtime=runtime, python=platform.python_version(), torch=env.get("torch", ""),
                       cuda=env.get("cuda"), gpus=tuple(env.get("gpus", [])), protections=tuple(protections),
                       notes=tuple(all_notes), **extra)


@contextlib.contextmanager
def _signals_set(stop: threading.Event, cancel: Callable[[], None], enabled: bool):
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


class ThreadBatch:
    """`jobs` submissions at once on this machine: threads that each wait on one judge process or
    one container (the grading itself runs in those, so threads are enough)."""

    def __init__(self, ctx: BatchContext, runtime: Runtime, batch: BatchOptions, single: bool = False):
        self.ctx, self.runtime, self.single = ctx, runtime, single
        self.jobs = batch.jobs or default_jobs(ctx.options.limits.memory_bytes)
        self.pool, self.per_job = None, 0
        if runtime.name == "docker":
            from grader.gpus import pool_for

            self.pool, self.per_job = pool_for(runtime.gpus.mode, runtime.gpus.ids, batch.gpus_per_job)

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
            return item, grade_one(item, self.ctx, self.runtime, self._gpu, single=self.single, cores=cores)

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
