"""A grading run: one or many submissions, the one pipeline every caller goes through.

    from grader.grading import GradeOptions, grade_with
    run = grade_with(paths, GradeOptions(runtime="local", jobs=2, results_dir=Path("out")))

Steps: check the options; choose the runtime (`auto` resolved, its warnings told to `on_note`
first); read back what `results_dir` already holds; hand the rest to an executor (threads, or Ray
tasks) that calls `submission.grade_one` for each; assemble the `GradeRun`.

Contracts:
- the report lists submissions in the order given, whatever order they finish in;
- one submission's failure (an unreadable archive, a container that does not start, a judge killed
  from outside) is reported for that submission, and the run goes on; a judge or container lost to
  an infrastructure fault is graded once more, then reported as an infrastructure error;
- with `results_dir`, each result is stored as soon as it is graded, and a rerun grades only what
  is missing, changed or ended in an infrastructure error (grader/resultstore.py);
- on SIGINT / SIGTERM (in the main thread) every judge or container still running is stopped and
  removed, and `Interrupted` is raised carrying the run of what finished (the CLI writes its
  reports and exits 130).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

from grader.catalog import Catalog, require_hidden_tests
from grader.errors import Interrupted, RuntimeUnavailable, UsageError
from grader.grading.assemble import grade_run
from grader.grading.executors import Threads, signals_stop
from grader.grading.options import GradeOptions
from grader.grading.submission import Context, WorkItem, work_items
from grader.results import GradeRun
from grader.resultstore import Graded, ResultStore, result_key, settings_digest
from grader.runtimes import get_runtime, resolve_runtime

HIDDEN_TESTS_HINT = ("Candidates: run `grader check`. Interviewers: grade with the grading image (`--runtime "
                     "docker`), or from the grader's own repository.")


def grade(paths: list[str | Path], **kwargs) -> GradeRun:
    """Grade one or more submissions. Keyword arguments are those of `GradeOptions`."""
    return grade_with(list(map(Path, paths)), GradeOptions(**kwargs))


def grade_with(paths: list[Path], options: GradeOptions) -> GradeRun:
    """Grade `paths` with `options`; see the module's contracts."""
    if not paths:
        raise UsageError("no submission given: pass a folder, a .py file, a .zip or a .tar.gz")
    options.check()
    catalog = Catalog.load(options.root)
    ctx = Context.of(options, catalog)
    started = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    t0 = time.monotonic()
    items = work_items(paths)
    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        if options.on_note is not None:  # e.g. "the local runtime does not hide hidden checks": said first
            options.on_note(text)

    runtime = None
    if options.runtime == "ray":
        from grader.grading.ray import RayExecutor

        executor = RayExecutor(ctx)
        runtime_name, version = f"ray ({options.node_runtime})", executor.version_tag()
    else:
        runtime_name, warning = resolve_runtime(options.runtime, options.runtime_options.get("image"), catalog.root,
                                                bool(options.runtime_options.get("allow_stale_image")))
        require_gpu_here(runtime_name, options)  # --require-gpu with no GPU here: before grading anything
        if warning:
            note(warning)
        runtime = get_runtime(runtime_name, **(options.runtime_options if runtime_name == "docker" else {}))
        stale = runtime.check_image(catalog.root) if runtime_name == "docker" else None
        if stale:
            note(stale)
        if runtime_name == "local" and options.visibility != "public":
            # the local judge reads this machine's exercises; the grading image brings its own
            require_hidden_tests(ctx.selected, HIDDEN_TESTS_HINT)
        executor = Threads(ctx, runtime)
        version = runtime_name
        if runtime_name == "docker":  # a rebuilt image grades again
            version = f"docker/{runtime.client.images.get(runtime.image).id}"
    store = ResultStore(options.results_dir) if options.results_dir else None
    results: dict[int, Graded] = {}
    todo = items
    if store is not None:
        todo = _resumed(items, store, ctx, version, results)
    if runtime is not None:
        runtime.expect_jobs(len(todo))  # the local runtime's judge template prepares once for all
    progress = options.progress
    if progress is not None:
        progress.start(total=len(items), resumed=list(results.values()))
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

    try:
        with signals_stop(ctx.stop, executor.cancel, options.handle_signals):
            executor.run(todo, begun, done)
        interrupted = ctx.stop.is_set()
    finally:
        if runtime is not None:
            runtime.close()
        if progress is not None:
            progress.close()
    ordered = [results[i] for i in sorted(results)]
    not_graded = ([(item.label, str(Path(item.path).resolve())) for item in items if item.index not in results]
                  if interrupted else None)  # every report says so, and names what was not graded
    run = grade_run(ordered, runtime=runtime_name, notes=notes, catalog=catalog, explicit=ctx.explicit,
                    total=len(items), started_at=started, duration_s=time.monotonic() - t0,
                    image=options.runtime_options.get("image"), resumable=store is not None, not_graded=not_graded)
    if interrupted:
        raise Interrupted(f"interrupted: {len(ordered)} of {len(items)} submissions graded"
                          + (f"; rerun with --results-dir {options.results_dir} to grade the rest"
                             if store is not None else ""), run=run)
    return run


def _resumed(items: list[WorkItem], store: ResultStore, ctx: Context, version: str,
             results: dict[int, Graded]) -> list[WorkItem]:
    """Fill `results` with what the store holds for these settings; return the items left to grade."""
    o = ctx.options
    settings = settings_digest(ctx.selected, {
        "exercises": sorted(o.exercises or []), "visibility": o.visibility, "timeout_s": o.timeout_s,
        "limits": vars(o.limits), "seed": o.seed, "runtime": version})
    todo = []
    for item in items:
        item.key = result_key(item.label, item.path, settings)
        found = store.load(item.label, item.key)
        if found is not None:
            results[item.index] = found
        else:
            todo.append(item)
    return todo


def require_gpu_here(runtime: str, options: GradeOptions) -> None:
    """--require-gpu on the local runtime of a machine with no GPU: refused before anything is
    graded (the docker runtime refuses when its first container cannot have one)."""
    if runtime != "local" or not options.runtime_options.get("require_gpu"):
        return
    from grader.gpus import visible_gpus

    if not visible_gpus():
        raise RuntimeUnavailable("--require-gpu: this machine has no GPU (nvidia-smi lists none), and the local "
                                 "runtime grades here: nothing was graded; grade on a machine with a GPU, or "
                                 "drop --require-gpu to grade on CPU (CUDA checks are then left out)")
