"""Reports rendered from one `GradeRun`: terminal, JSON, JUnit XML, Gradescope, Markdown, HTML, and
the gradebook CSV (`grader.gradebook`)."""

from __future__ import annotations

from pathlib import Path

from grader.results import GradeRun


def render_report(kind: str, run: GradeRun, **options) -> str:
    """Render `run` as `kind`; `options` go to the renderer (markdown: `limit`)."""
    from grader.gradebook import render_csv
    from grader.reports import gradescope, html, json_report, junit, markdown

    writers = {"json": json_report.render, "junit": junit.render, "gradescope": gradescope.render,
               "markdown": markdown.render, "html": html.render, "csv": render_csv}
    return writers[kind](run, **options)


def said_by_problem(ex, check) -> bool:
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


def write_report(kind: str, run: GradeRun, path: Path, **options) -> None:
    """Render `run` as `kind` and write it to `path`; `options` go to the renderer (markdown: `limit`)."""
    text = render_report(kind, run, **options)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
