"""The grading engine, usable without the CLI:

    from grader.grading import grade
    run = grade(["submission.zip"], exercises=["05", "10"], runtime="local")
    print(run.score, run.max_score)

It opens each submission, finds the candidate files, runs the judge through a runtime, and builds
the `GradeRun` result model that every report is rendered from. A broken exercise never stops the
others, and a submission that cannot be opened or holds no exercise file is reported, never raised:
it is a failed submission (`error` set; 0 of the points of the exercises asked for).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import platform
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader import __version__, notebooks
from grader.catalog import Catalog, Exercise, require_hidden_tests
from grader.errors import GraderError, UsageError
from grader.packs import origin_fields
from grader.practice.state import read_progress
from grader.results import (
    Environment,
    ExerciseResult,
    Flag,
    GradeRun,
    SubmissionResult,
    safe_text,
    score_checks,
)
from grader.runtimes import JudgeJob, JudgeOutput, get_runtime, resolve_runtime
from grader.runtimes.base import Candidate
from grader.sandbox.limits import MIN_MEMORY_GB, Limits
from grader.submissions import CandidateFile, locate, opened, submission_name

VISIBILITY_FILES = {"all": ("test_public.py", "test_hidden.py"), "public": ("test_public.py",),
                    "hidden": ("test_hidden.py",)}


@dataclass
class GradeOptions:
    exercises: list[str] | None = None  # refs; None: every exercise with a file in the submission
    runtime: str = "local"  # local | docker | auto (docker when a daemon and the image are there)
    visibility: str = "all"
    timeout_s: float | None = None
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    root: Path | None = None
    runtime_options: dict = field(default_factory=dict)
    pytest_args: list[str] = field(default_factory=list)  # e.g. ["-x"], ["-k", "pairwise"] (grader check)
    # what the candidate's code prints, shown under its failing public checks: for the candidate
    # (`grader check`, `grader watch`), never in a grading run's reports, where printed text could
    # pose as a verdict in front of the interviewer
    capture_output: bool = False
    batch: object | None = None  # grader.batch.BatchOptions: jobs, --results-dir, progress, Ray


def _batched(paths: list[Path], options: GradeOptions) -> bool:
    return options.batch is not None or len(paths) > 1 or options.runtime == "ray"


def grade(paths: list[str | Path], **kwargs) -> GradeRun:
    """Grade one or more submissions. Keyword arguments are those of `GradeOptions`."""
    return grade_with(list(map(Path, paths)), GradeOptions(**kwargs))


def grade_with(paths: list[Path], options: GradeOptions) -> GradeRun:
    if not paths:
        raise UsageError("no submission given: pass a folder, a .py file, a .zip or a .tar.gz")
    if options.limits.memory_bytes < MIN_MEMORY_GB * (1 << 30):
        raise UsageError(f"a memory limit of {options.limits.memory_bytes / (1 << 30):g} GiB cannot even import "
                         f"torch in a worker: every check would fail for the grader's setting; use at least "
                         f"{MIN_MEMORY_GB:g} GiB")
    if _batched(paths, options):  # each submission in its own judge or container, in parallel
        from grader.batch import BatchOptions, grade_batch

        return grade_batch(paths, options, options.batch or BatchOptions())
    catalog = Catalog.load(options.root)
    explicit = bool(options.exercises)
    selected = catalog.select(options.exercises)
    started = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    t0 = time.monotonic()
    runtime_name, warning = resolve_runtime(options.runtime, options.runtime_options.get("image"), catalog.root,
                                            bool(options.runtime_options.get("allow_stale_image")))
    require_gpu_here(runtime_name, options)
    runtime = get_runtime(runtime_name, **(options.runtime_options if runtime_name == "docker" else {}))
    stale = runtime.check_image(catalog.root) if runtime_name == "docker" else None
    with contextlib.ExitStack() as stack:
        stack.callback(runtime.close)
        candidates: list[tuple[str, Path, dict[str, CandidateFile] | None, str | None]] = []
        labels: set[str] = set()
        origin: dict[str, Path] = {}  # what was given: an archive, not the folder it is unpacked to
        judge_roots: dict[str, Path] = {}  # what the runtime mounts: differs for a single notebook
        progress: dict[str, list[dict]] = {}
        for path in paths:
            label = _unique(submission_name(path), labels)
            origin[label] = Path(path).resolve()
            try:
                root = stack.enter_context(opened(path))
                if entries := read_progress(root):  # a --record-progress bundle's record (unverified)
                    progress[label] = entries
                files = locate(root, selected, explicit)
                files, judge_roots[label] = notebooks.prepare(root, files, selected, stack)
                if not files:
                    raise UsageError(
                        f"{safe_text(str(path), newlines=False)}: no exercise files found (looked for e.g. "
                        f"{selected[0].layout_path}); "
                        f"name the exercises with --exercises, or check the layout")
                candidates.append((label, root, files, None))
            except GraderError as exc:
                # a failed submission, reported as such (score 0) in every report: never raised,
                # so that reports are still written and the candidate sees why
                candidates.append((label, path, None, str(exc)))
        graded = [c for c in candidates if c[2]]
        used = [ex for ex in selected if any(ex.id in c[2] for c in graded)]
        if runtime.name == "local" and options.visibility != "public":
            # the local judge reads this machine's exercises; the grading image brings its own
            require_hidden_tests(used, "Candidates: run `grader check`. Interviewers: grade with the grading "
                                       "image (`--runtime docker`), or from the grader's own repository.")
        output = JudgeOutput(records=[])
        if graded:
            job = JudgeJob(root=catalog.root, exercises=used,
                           candidates=[Candidate(label, {k: v.to_spec() for k, v in files.items()}, str(judge_roots[label]))
                                       for label, root, files, _ in graded],
                           test_files=VISIBILITY_FILES[options.visibility], limits=options.limits,
                           timeout_s=options.timeout_s, seed=options.seed, pytest_args=list(options.pytest_args),
                           capture_output=options.capture_output)
            # a submission with many exercises: several judges, each over a share of them (isolation
            # unchanged: every check still runs in a worker of its own)
            from grader.batch import default_jobs
            from grader.parallel import judges_for, run_split

            output = run_split(runtime, job, judges_for(job, default_jobs(options.limits.memory_bytes)))
        results = []
        for label, root, files, error in candidates:
            if files is None:
                asked = selected if explicit else []
                results.append(SubmissionResult(name=label, path=str(origin[label]), error=error,
                                                exercises=tuple(failed_exercise(ex, error) for ex in asked)))
                continue
            exercises = tuple(build_exercise(ex, label, root, files[ex.id], output)
                              for ex in used if ex.id in files)
            if Path(root) != origin[label]:  # an archive: messages name it, not its temporary folder
                from grader.gradebook import archive_paths

                exercises = archive_paths(exercises, str(root), str(origin[label]))
            # an archive's path, never the temporary folder it was unpacked to (gone after grading)
            results.append(SubmissionResult(name=label, path=str(origin[label]), exercises=exercises))
    if warning:
        output.notes.insert(0, warning)
    if stale:
        output.notes.insert(0, stale)
    output.notes += [f"exercise {name} was skipped: {problem}" for name, problem in catalog.problems.items()]
    env = environment(runtime.name, output)
    env = replace(env, exercise_root=str(catalog.root) if runtime.name == "local" else
                  f"the grading image {options.runtime_options.get('image') or 'torch-grader:latest'}")
    return GradeRun(submissions=tuple(results), environment=env, started_at=started,
                    duration_s=time.monotonic() - t0, tool_version=__version__,
                    extra={"progress": progress} if progress else {})


def require_gpu_here(runtime: str, options: GradeOptions) -> None:
    """--require-gpu on the local runtime of a machine with no GPU: refused before anything is
    graded (the docker runtime refuses when its first container cannot have one)."""
    if runtime != "local" or not options.runtime_options.get("require_gpu"):
        return
    from grader.errors import RuntimeUnavailable
    from grader.gpus import visible_gpus

    if not visible_gpus():
        raise RuntimeUnavailable("--require-gpu: this machine has no GPU (nvidia-smi lists none), and the local "
                                 "runtime grades here: nothing was graded; grade on a machine with a GPU, or "
                                 "drop --require-gpu to grade on CPU (CUDA checks are then left out)")


def failed_exercise(ex: Exercise, why: str) -> ExerciseResult:
    """An exercise of a submission that could not be graded at all: 0 of its points, with the reason."""
    row = {"name": "open submission", "kind": "value", "weight": 1.0, "visibility": "public", "outcome": "failed",
           "message": why, "duration_s": 0.0, "file": "", "line": 0}
    return ExerciseResult(id=ex.id, title=ex.title, track=ex.track, difficulty=ex.difficulty, points=ex.points,
                          file=None, checks=tuple(score_checks(ex.points, [row])), problem=why, **origin_fields(ex))


def _unique(label: str, used: set[str]) -> str:
    candidate, n = label, 2
    while candidate in used:
        candidate, n = f"{label}-{n}", n + 1
    used.add(candidate)
    return candidate


def environment(runtime: str, output: JudgeOutput) -> Environment:
    env = next((r for r in output.records if r.get("type") == "environment"), {})
    return Environment(runtime=runtime, python=platform.python_version(), torch=str(env.get("torch", "")),
                       cuda=env.get("cuda"), gpus=tuple(env.get("gpus", [])),
                       protections=tuple(output.protections), notes=tuple(output.notes))


def build_exercise(ex: Exercise, label: str, root: Path, cand: CandidateFile, output: JudgeOutput) -> ExerciseResult:
    """Turn the judge's records for one (submission, exercise) into an ExerciseResult."""
    mine = [r for r in output.records if r.get("candidate") == label and r.get("exercise") == ex.id]
    collected = {r["nodeid"]: r for r in mine if r.get("type") == "collected"}
    checks = {r["nodeid"]: r for r in mine if r.get("type") == "check"}
    static = next((r for r in mine if r.get("type") == "static"), {})
    stopped = next((r for r in output.records if r.get("type") == "stopped"), None)
    rows = []
    for nodeid, info in collected.items():
        if nodeid in checks:
            rows.append(checks[nodeid])
        elif stopped is not None and not output.error:  # -x: the session stopped where it was asked to
            rows.append({**info, "outcome": "not_run", "duration_s": 0.0,
                         "message": f"not run: {stopped.get('reason', 'stopped')} (-x)"})
        else:
            why = output.error or "the judge stopped before reaching it"
            rows.append({**info, "outcome": "error", "message": f"not graded: {why}", "duration_s": 0.0})
    problem = cand.problem
    if not rows:
        why = output.error or "the judge recorded no checks for this exercise"
        # The judge's log may quote hidden checks: it stays on the grader's side, named only.
        kept = keep_judge_log(output)
        rows.append({"name": "grading", "kind": "value", "weight": 1.0, "visibility": "hidden", "outcome": "error",
                     "message": why + (f" (the judge's log is kept for the interviewer in {kept})" if kept else ""),
                     "duration_s": 0.0, "file": "", "line": 0})
        problem = problem or why
    tampering = [r for r in mine if r.get("type") == "tampering"]
    flags = [Flag(f["line"], f["message"]) for f in static.get("flags", [])]
    if tampering:
        # Tampering voids the whole exercise: nothing observed in that worker can be trusted.
        first = str(tampering[0].get("message", "tampering detected"))[:500]
        rows = [{**r, "outcome": "failed", "message": f"voided: {first}"} if r["outcome"] == "passed" else r
                for r in rows]
        flags.insert(0, Flag(0, f"{first} (during {str(tampering[0].get('check', '?'))[:200]})"))
        problem = problem or first
    checks_out = score_checks(ex.points, rows)
    file = None
    if cand.path is not None:
        try:
            file = str(cand.path.relative_to(root)) if root.is_dir() else cand.path.name
        except ValueError:
            file = str(cand.path)
    result = ExerciseResult(id=ex.id, title=ex.title, track=ex.track, difficulty=ex.difficulty, points=ex.points,
                            file=file, checks=tuple(checks_out), problem=problem, flags=tuple(flags),
                            **origin_fields(ex))
    return notebooks.map_result(result, cand)  # a notebook's results shown at its cells and lines


def keep_judge_log(output: JudgeOutput) -> str | None:
    """Write the judge's log (once per run) to a private file on this machine and return its path:
    reports name it, never quote it (it may hold lines of hidden checks)."""
    if not output.log:
        return None
    if output.log_file is None:
        import os
        import tempfile

        folder = Path(tempfile.gettempdir()) / f"torch-grader-logs-{os.getuid()}"
        folder.mkdir(mode=0o700, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="judge-", suffix=".log", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(output.log)
        output.log_file = name
    return output.log_file
