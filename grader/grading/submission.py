"""Grading one submission: the one path every caller's submissions take, whichever executor
schedules them (threads here, a Ray task on a node).

Open it (a folder, a file, an archive, a notebook), find the candidate's files, run the judge over
them through a runtime (several judges over shares of the exercises when it has cores to spare), run
it once more when the infrastructure failed (a judge or container lost, not the candidate's code),
and assemble its result. A submission that cannot be graded is a result with `error` set, never an
exception, except when the runtime itself is unavailable (then no submission could be graded)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader import notebooks
from grader.catalog import Catalog, Exercise
from grader.errors import GraderError, RuntimeUnavailable, UsageError
from grader.grading.assemble import build_exercise, failed_exercise
from grader.grading.options import VISIBILITY_FILES, GradeOptions
from grader.parallel import judges_for, run_split
from grader.progress_record import read_progress
from grader.results import SubmissionResult, safe_text
from grader.resultstore import Graded
from grader.runtimes import JudgeJob, JudgeOutput, Runtime
from grader.runtimes.base import Candidate
from grader.submissions import locate, opened, submission_name

ATTEMPTS = 2  # a judge or container lost to an infrastructure fault is graded once more


@dataclass
class WorkItem:
    """One submission of a run: its place in the order given, its path and its unique label."""

    index: int
    path: Path
    label: str
    key: str = ""  # its key in --results-dir


@dataclass
class Context:
    """What every submission's grading needs, fixed for the run."""

    catalog: Catalog
    selected: list[Exercise]
    explicit: bool  # the exercises were named (--exercises): a submission lacking one scores 0 of it
    options: GradeOptions
    stop: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def of(cls, options: GradeOptions, catalog: Catalog | None = None) -> Context:
        catalog = catalog or Catalog.load(options.root)
        return cls(catalog, catalog.select(options.exercises), bool(options.exercises), options)


def work_items(paths: list[Path]) -> list[WorkItem]:
    """The submissions in the order given, each with a label of its own (`name`, `name-2`, ...)."""
    labels: set[str] = set()
    return [WorkItem(i, Path(path), unique_label(submission_name(path), labels)) for i, path in enumerate(paths)]


def unique_label(label: str, used: set[str]) -> str:
    candidate, n = label, 2
    while candidate in used:
        candidate, n = f"{label}-{n}", n + 1
    used.add(candidate)
    return candidate


def grade_one(item: WorkItem, ctx: Context, runtime: Runtime,
              run_kwargs: Callable[[list[Exercise]], object] | None = None, cores: int = 1) -> Graded | None:
    """Grade one submission in its own judge (or container); None when the run was stopped meanwhile.
    `run_kwargs(exercises)` is a context manager yielding extra `runtime.run` arguments (a GPU held
    for the job). `cores`: what this submission may use; a submission with many exercises is then
    graded by several judges, each over a share of its exercises (`grader.parallel.judges_for`):
    isolation is unchanged, every check still runs in a worker of its own."""
    t0 = time.monotonic()
    opts = ctx.options
    given = Path(item.path).resolve()
    try:
        with contextlib.ExitStack() as stack:
            root = stack.enter_context(opened(item.path))
            progress = read_progress(root)  # a --record-progress bundle's record (unverified)
            files = locate(root, ctx.selected, ctx.explicit)
            # notebooks become generated modules; the runtime mounts the folder holding them
            files, judge_root = notebooks.prepare(root, files, ctx.selected, stack)
            if not files:
                raise UsageError(f"{safe_text(str(item.path), newlines=False)}: no exercise files found (looked for "
                                 f"e.g. {ctx.selected[0].layout_path}); name the exercises with --exercises, "
                                 f"or check the layout")
            used = [ex for ex in ctx.selected if ex.id in files]
            job = JudgeJob(root=ctx.catalog.root, exercises=used,
                           candidates=[Candidate(item.label, {k: v.to_spec() for k, v in files.items()},
                                                 str(judge_root))],
                           test_files=VISIBILITY_FILES[opts.visibility], limits=opts.limits,
                           timeout_s=opts.timeout_s, seed=opts.seed, capture_output=opts.capture_output,
                           pytest_args=list(opts.pytest_args))
            output = None
            for _attempt in range(ATTEMPTS):
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
            if root != given:  # an archive: messages name it, not its temporary folder
                from grader.gradebook import archive_paths

                exercises = archive_paths(exercises, str(root), str(given))
            error = (f"infrastructure error (graded twice, failed both times): {output.error}"
                     if output.infrastructure else None)
            # an archive's path, never the temporary folder it was unpacked to (gone after grading)
            sub = SubmissionResult(name=item.label, path=str(given), exercises=exercises, error=error)
            env = next((r for r in output.records if r.get("type") == "environment"), {})
            environment = {"torch": str(env.get("torch", "")), "cuda": env.get("cuda"),
                           "gpus": list(env.get("gpus", [])), "protections": list(output.protections),
                           "notes": list(output.notes)}
            if progress:
                environment["progress"] = progress
            return Graded(sub, environment, infrastructure=output.infrastructure, duration_s=time.monotonic() - t0)
    except RuntimeUnavailable:  # no daemon, no GPU: no submission could be graded
        raise
    except GraderError as exc:  # this submission only: reported, 0 of the exercises asked for
        asked = tuple(failed_exercise(ex, str(exc)) for ex in ctx.selected) if ctx.explicit else ()
        return Graded(SubmissionResult(name=item.label, path=str(given), exercises=asked, error=str(exc)),
                      duration_s=time.monotonic() - t0)
