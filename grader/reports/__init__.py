"""Reports rendered from one `GradeRun`: terminal, JSON, JUnit XML, Gradescope, Markdown, HTML, and
the gradebook CSV (`csv_report`). What several of them say the same way is in `common`."""

from __future__ import annotations

from pathlib import Path

from grader.results import GradeRun


def render_report(kind: str, run: GradeRun, **options) -> str:
    """Render `run` as `kind`; `options` go to the renderer (markdown: `limit`)."""
    from grader.reports import csv_report, gradescope, html, json_report, junit, markdown

    writers = {"json": json_report.render, "junit": junit.render, "gradescope": gradescope.render,
               "markdown": markdown.render, "html": html.render, "csv": csv_report.render}
    return writers[kind](run, **options)


def write_report(kind: str, run: GradeRun, path: Path, **options) -> None:
    """Render `run` as `kind` and write it to `path`; `options` go to the renderer (markdown: `limit`)."""
    text = render_report(kind, run, **options)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
