"""Assembling results: the judge's records for one (submission, exercise) become an
`ExerciseResult`; the graded submissions of a run become its `GradeRun` (the result model every
report is rendered from, grader/results.py)."""

from __future__ import annotations

import platform
from pathlib import Path

from grader import __version__, notebooks
from grader.catalog import Catalog, Exercise
from grader.packs import origin_fields
from grader.results import Environment, ExerciseResult, Flag, GradeRun, score_checks
from grader.resultstore import Graded
from grader.runtimes import JudgeOutput
from grader.submissions import CandidateFile


def failed_exercise(ex: Exercise, why: str) -> ExerciseResult:
    """An exercise of a submission that could not be graded at all: 0 of its points, with the reason."""
    row = {"name": "open submission", "kind": "value", "weight": 1.0, "visibility": "public", "outcome": "failed",
           "message": why, "duration_s": 0.0, "file": "", "line": 0}
    return ExerciseResult(id=ex.id, title=ex.title, track=ex.track, difficulty=ex.difficulty, points=ex.points,
                          file=None, checks=tuple(score_checks(ex.points, [row])), problem=why, **origin_fields(ex))


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


def grade_run(graded: list[Graded], *, runtime: str, notes: list[str], catalog: Catalog, explicit: bool,
              total: int, started_at: str, duration_s: float, image: str | None = None, resumable: bool = False,
              not_graded: list[tuple[str, str]] | None = None) -> GradeRun:
    """The run's result from its graded submissions (in the order given). `not_graded`: the
    (label, path) of submissions an interruption left out, which every report then names."""
    submissions = [g.submission for g in graded]
    if total > 1 and not explicit:  # a batch: every submission on the exercises found in any
        from grader.gradebook import same_exercises

        submissions = same_exercises(submissions, [ex.id for ex in catalog.exercises])
    extra = _extra(graded, resumable) | _guides(graded, catalog)
    if not_graded is not None:
        extra["partial"] = {"graded": len(graded), "total": total,
                            "not_graded": [{"name": name, "path": path} for name, path in not_graded]}
    return GradeRun(submissions=tuple(submissions), environment=run_environment(runtime, graded, notes, catalog, image),
                    started_at=started_at, duration_s=duration_s, tool_version=__version__, extra=extra)


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


def run_environment(runtime: str, graded: list[Graded], notes: list[str], catalog: Catalog,
                    image: str | None = None) -> Environment:
    """Where and how the run graded: the first judge's torch and GPUs, every note once, and where the
    exercises and checks came from."""
    env = next((g.environment for g in graded if g.environment.get("torch")), {})
    all_notes = list(notes)
    for g in graded:
        for note in g.environment.get("notes", []):
            if note not in all_notes:
                all_notes.append(note)
    all_notes += [f"exercise {name} was skipped: {problem}" for name, problem in catalog.problems.items()]
    protections = next((g.environment.get("protections") for g in graded if g.environment.get("protections")), [])
    exercise_root = (str(catalog.root) if runtime == "local" else
                     f"the grading image {image or 'torch-grader:latest'}" if runtime == "docker"
                     else f"the Ray nodes ({runtime})")
    return Environment(runtime=runtime, python=platform.python_version(), torch=env.get("torch", ""),
                       cuda=env.get("cuda"), gpus=tuple(env.get("gpus", [])), protections=tuple(protections),
                       notes=tuple(all_notes), exercise_root=exercise_root)
