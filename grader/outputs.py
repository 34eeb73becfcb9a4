"""Where `grader grade` writes its reports, checked before any grading starts.

`plan_reports` turns the report options into targets and refuses, before minutes of grading, what
would fail or destroy work: a folder or unwritable place, two reports to one file, a path that
is (or would overwrite a file of) a submission. `-` means standard output (one report at most).
`write_reports` writes every target and returns what could not be written, so one failure never
stops the others: whatever a writer raises (an OSError, or a UnicodeEncodeError on text no result
should hold) is that report's failure, and the CLI names it and exits 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UsageError
from grader.results import GradeRun

STDOUT = "-"
LABELS = {"json": "--json", "junit": "--junit", "gradescope": "--gradescope", "markdown": "--markdown",
          "html": "--html", "csv": "--csv"}


@dataclass(frozen=True)
class ReportTarget:
    kind: str  # json | junit | gradescope | markdown | html | csv
    path: Path | None  # None: standard output
    options: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{LABELS.get(self.kind, self.kind)} {self.path if self.path else STDOUT}"


def plan_reports(requested: dict[str, Path | str | None], submissions: list[Path],
                 options: dict[str, dict] | None = None) -> list[ReportTarget]:
    """Validate the requested report paths (kind -> path, None: not asked for) and return targets.

    Raises UsageError naming the option and what to do: for a path that cannot be written (its
    folder is missing and cannot be made, it is a folder, no permission), two reports to one path,
    more than one report to `-`, or a path that is a submission or an existing file inside one."""
    targets: list[ReportTarget] = []
    seen: dict[Path, str] = {}
    to_stdout: list[str] = []
    for kind, raw in requested.items():
        if raw is None:
            continue
        opts = (options or {}).get(kind, {})
        flag = LABELS.get(kind, kind)
        if str(raw) == STDOUT:
            to_stdout.append(flag)
            targets.append(ReportTarget(kind, None, opts))
            continue
        path = Path(raw)
        resolved = path.resolve()
        if resolved in seen:
            raise UsageError(f"{flag} and {seen[resolved]} both write {path}: give each report its own file")
        seen[resolved] = flag
        _refuse_submission(flag, path, resolved, submissions)
        probe_writable(flag, path)
        targets.append(ReportTarget(kind, path, opts))
    if len(to_stdout) > 1:
        raise UsageError(f"{' and '.join(to_stdout)} all write to standard output (-): send at most one there")
    return targets


def _refuse_submission(flag: str, path: Path, resolved: Path, submissions: list[Path]) -> None:
    for sub in submissions:
        sub_resolved = Path(sub).resolve()
        if resolved == sub_resolved:
            raise UsageError(f"{flag} {path} is the submission itself: writing the report there would overwrite "
                             f"it; write reports elsewhere (e.g. {flag} reports/{path.stem}{_suffix(flag)})")
        if sub_resolved.is_dir() and resolved.is_relative_to(sub_resolved) and resolved.exists():
            raise UsageError(f"{flag} {path} is a file of the submission {sub}: writing the report there would "
                             f"overwrite it; write reports outside the submission")


def _suffix(flag: str) -> str:
    return {"--json": ".json", "--junit": ".xml", "--gradescope": ".json", "--markdown": ".md",
            "--html": ".html", "--csv": ".csv"}.get(flag, "")


def probe_writable(flag: str, path: Path) -> None:
    """Make the folder and open the file for appending (removing it again if it did not exist):
    the only sure test that the report can be written later."""
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a folder: give a file name (e.g. {path / 'report'}{_suffix(flag)})")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc}): choose a writable path "
                         f"(nothing was graded)") from None
    if not existed:
        try:
            os.unlink(path)
        except OSError:
            pass


def write_reports(run: GradeRun, targets: list[ReportTarget],
                  stdout: Callable[[str], None] | None = None) -> list[str]:
    """Write every target; return one message per report that could not be written."""
    from grader.reports import render_report

    failures = []
    for target in targets:
        try:
            text = render_report(target.kind, run, **target.options)
            if target.path is None:
                (stdout or sys.stdout.write)(text)
                continue
            target.path.parent.mkdir(parents=True, exist_ok=True)
            target.path.write_text(text, encoding="utf-8")
        except OSError as exc:
            failures.append(f"could not write {target.label}: {exc.strerror or exc}")
        except Exception as exc:  # noqa: BLE001 - a report that cannot be rendered costs only itself
            failures.append(f"could not write {target.label}: {type(exc).__name__}: {exc}")
    return failures
