"""Who a report is for: the interviewer (everything) or the candidate (hidden checks in aggregate).

A candidate who reads every hidden check's name, location and message (a pull request's JUnit,
re-graded on every push) can probe the hidden checks one by one. The candidate's form keeps the
public checks as they are and replaces an exercise's hidden checks by one row per kind
("hidden value checks: 3 of 4 passed"), with their points summed; no name, file, line or message
of a hidden check survives, nor the candidate's own exception text from one (it can carry what
the worker saw of a probe). Hidden check names quoted in notes, flags and problems are replaced.
Scores are unchanged.
"""

from __future__ import annotations

import dataclasses
import re

from grader.results import CheckResult, ExerciseResult, GradeRun

AUDIENCES = ("interviewer", "candidate")


def for_audience(run: GradeRun, audience: str) -> GradeRun:
    """`run` as `audience` may read it (see the module docstring)."""
    if audience == "interviewer":
        return run
    if audience != "candidate":
        raise ValueError(f"unknown audience {audience!r}: use {' or '.join(AUDIENCES)}")
    hidden = {c.name.split("[")[0] for s in run.submissions for e in s.exercises for c in e.checks
              if c.visibility == "hidden"}
    redact = _redactor(hidden)
    subs = tuple(dataclasses.replace(s, error=redact(s.error) if s.error else s.error,
                                     exercises=tuple(_exercise(e, redact) for e in s.exercises))
                 for s in run.submissions)
    env = dataclasses.replace(run.environment, notes=tuple(redact(n) for n in run.environment.notes))
    extra = {key: value for key, value in run.extra.items() if key != "guides"}  # the interviewer's guides
    return dataclasses.replace(run, submissions=subs, environment=env, extra={**extra, "audience": "candidate"})


def _redactor(names: set[str]):
    if not names:
        return lambda text: text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(\[[^\]]*\])?")
    return lambda text: pattern.sub("a hidden check", text)


def _exercise(ex: ExerciseResult, redact) -> ExerciseResult:
    public = [c for c in ex.checks if c.visibility != "hidden"]
    kinds: dict[str, list[CheckResult]] = {}
    for c in ex.checks:
        if c.visibility == "hidden":
            kinds.setdefault(c.kind, []).append(c)
    rows = list(public)
    for kind, checks in kinds.items():
        counted = [c for c in checks if c.outcome != "not_run"]
        passed = sum(c.outcome == "passed" for c in counted)
        if not counted:
            outcome = "not_run"
        elif passed == len(counted):
            outcome = "passed"
        else:
            outcome = "failed"
        not_run = len(checks) - len(counted)
        message = f"{passed} of {len(counted)} hidden {kind} checks passed" + (
            f" ({not_run} could not run here)" if not_run else "")
        rows.append(CheckResult(name=f"hidden {kind} checks", kind=kind, weight=sum(c.weight for c in checks),
                                visibility="hidden", outcome=outcome, message=message,
                                duration_s=round(sum(c.duration_s for c in checks), 4), file="", line=0,
                                score=sum(c.score for c in checks), max_score=sum(c.max_score for c in checks)))
    return dataclasses.replace(ex, checks=tuple(rows), problem=redact(ex.problem) if ex.problem else ex.problem,
                               flags=tuple(dataclasses.replace(f, message=redact(f.message)) for f in ex.flags))

