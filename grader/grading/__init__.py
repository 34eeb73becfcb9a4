"""The grading engine, usable without the CLI:

    from grader.grading import grade
    run = grade(["submission.zip"], exercises=["05", "10"], runtime="local")
    print(run.submissions[0].score, run.submissions[0].max_score)

One pipeline grades everything, whoever calls it (the CLI, Python, Ray nodes):

- `options`: `GradeOptions`, every setting and its default, defined once;
- `run`: `grade_with`, a run over one or many submissions (runtime choice, resume, signals);
- `executors`: what schedules the submissions (threads here; `ray`: one Ray task each);
- `submission`: `grade_one`, one submission graded (open, locate, judge, one infrastructure retry);
- `assemble`: the judge's records made into results, and the results into a `GradeRun`.

A broken exercise never stops the others, and a submission that cannot be opened or holds no
exercise file is reported, never raised: a failed submission (`error` set; 0 of the points of the
exercises asked for).
"""

from __future__ import annotations

from grader.grading.options import DEFAULTS, GradeOptions

__all__ = ["DEFAULTS", "GradeOptions", "grade", "grade_with"]


def __getattr__(name: str):
    """`grade` and `grade_with`, imported when first asked for: the CLI reads `DEFAULTS` for its
    options without importing the engine (runtimes, catalog, results) at every start."""
    if name in ("grade", "grade_with"):
        from grader.grading import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
