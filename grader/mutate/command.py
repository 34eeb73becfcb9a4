"""`grader mutate` as the CLI runs it: grade, print, write the reports, choose the exit code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.errors import ExitCode
from grader.mutate import report
from grader.mutate.cache import kill_child_judges
from grader.mutate.engine import MutationInterrupted, MutationRun, mutate

INTERRUPTED = 130


def run_mutate(exercises: list[str] | None, jobs: int, json_path: Path | None, html_path: Path | None,
               cache_dir: Path, timeout_s: float | None, echo: Callable[..., None], batch_size: int = 8) -> int:
    """Exit status: 0 every mutant killed or accepted as equivalent; 1 a survivor, a stale
    equivalent entry, an error or a reference below 100 %; 130 interrupted (what was graded is kept)."""
    for path in (json_path, html_path):
        if path is not None and not path.parent.is_dir():
            from grader.errors import UsageError
            raise UsageError(f"cannot write {path}: folder {path.parent} does not exist")
    try:
        run: MutationRun = mutate(exercises, jobs=jobs, cache_dir=cache_dir, timeout_s=timeout_s,
                                  batch_size=batch_size, progress=lambda m: echo(m, err=True))
        status = int(ExitCode.OK) if run.ok else int(ExitCode.ERROR)
    except MutationInterrupted as exc:
        run, status = exc.run, INTERRUPTED
        echo(f"Interrupted: {str(exc)}", err=True)
    except KeyboardInterrupt:  # before any mutant was graded (the references, say)
        kill_child_judges()
        echo("Interrupted before any mutant was graded", err=True)
        return INTERRUPTED
    echo(report.text(run))
    if json_path is not None:
        report.write_json(run, json_path)
    if html_path is not None:
        report.write_html(run, html_path)
    return status
