"""What several reports say the same way: the line for an interrupted run (`partial_line`), which
failing checks their exercise's problem already explains (`said_by_problem`), and which flags are
tampering verdicts (`is_tampering`)."""

from __future__ import annotations

from grader.results import CheckResult, ExerciseResult, GradeRun

TAMPERING = "tampering detected"  # how the judge's tampering verdicts start (grader/judge/proxy.py)


def is_tampering(message: str) -> bool:
    """A flag that is a tampering verdict (the exercise is voided), not a note for the interviewer."""
    return message.startswith(TAMPERING)


def said_by_problem(ex: ExerciseResult, check: CheckResult) -> bool:
    """A failing check whose message is its exercise's problem (an exercise not submitted, a
    submission that could not be opened): the problem, shown once, says it for every such check."""
    return bool(ex.problem) and check.message.strip() == ex.problem.strip()


def partial_line(run: GradeRun) -> str | None:
    """"interrupted: N of M submissions graded; not graded: a, b" for a run stopped by Ctrl-C or
    SIGTERM (`run.extra["partial"]`), else None. Every report says it."""
    partial = run.extra.get("partial")
    if not partial:
        return None
    names = [str(item.get("name", "?")) for item in partial.get("not_graded", [])]
    shown = ", ".join(names[:50]) + (f" and {len(names) - 50} more" if len(names) > 50 else "")
    return (f"interrupted: {partial.get('graded', 0)} of {partial.get('total', 0)} submissions graded"
            + (f"; not graded: {shown}" if names else ""))
