"""`grader check`'s output, from a `GradeRun` of public checks (also what `grader watch` reuses).

Like pytest: a mark per check, each failing check's message with the candidate's `file:line`
(relative to the current folder, so terminals and editors make it clickable), the check's own
location, the expected-vs-got and inputs the judge added, the candidate's captured output, and a
final summary line ("2 failed, 1 passed in 5.4 s"). Candidate text is printed with markup off.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from grader.reports import safe
from grader.results import CheckResult, GradeRun

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("!", "red"), "not_run": ("-", "dim")}
MESSAGE_LINES = 12  # per failing check, unless verbose
OUTPUT_LINES = 20  # of captured output per failing check, unless verbose
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>\S+))?')


def where(path: str | Path, cwd: Path | None = None) -> str:
    """`path` relative to the current folder when it lies under it, else absolute."""
    cwd = cwd or Path.cwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _frames_clickable(line: str, cwd: Path | None) -> str:
    """'  File "/abs/broadcast_bias.py", line 5, in f' -> 'broadcast_bias.py:5 in f'."""
    def repl(match: re.Match) -> str:
        text = f"{where(match['path'], cwd)}:{match['line']}"
        return text + (f" in {match['func']}" if match["func"] else "")
    return _FRAME.sub(repl, line).strip() if _FRAME.search(line) else line


def failed(run: GradeRun) -> bool:
    """True when a public check failed (what makes `grader check` exit 3)."""
    return any(c.outcome in ("failed", "error") for s in run.submissions for e in s.exercises for c in e.checks)


def summary_line(run: GradeRun) -> str:
    """pytest's closing line: "2 failed, 1 passed, 3 not run in 5.4 s"."""
    counts = Counter(c.outcome for s in run.submissions for e in s.exercises for c in e.checks)
    words = [("failed", "failed"), ("error", "error"), ("passed", "passed"), ("not_run", "not run")]
    parts = [f"{counts[key]} {label}" + ("s" if key == "error" and counts[key] > 1 else "")
             for key, label in words if counts[key]]
    return f"{', '.join(parts) or 'no checks'} in {run.duration_s:.1f} s"


def render_checks(run: GradeRun, console: Console, *, root: Path | None = None, verbosity: int = 0,
                  cwd: Path | None = None) -> None:
    """Print every exercise's checks (verbosity -1: failing ones only; 1: whole messages and why a
    check did not run) and the summary line. `root` is the catalog root that check files are
    relative to (for their clickable location)."""
    for sub in run.submissions:
        if sub.error:
            console.print(Text(f"{safe.inert(sub.name)}: not checked: {safe.inert(sub.error)}", style="bold red"))
        for ex in sub.exercises:
            passed = sum(c.outcome == "passed" for c in ex.checks)
            counted = sum(c.outcome != "not_run" for c in ex.checks)
            # never wrapped (like pytest's lines): a path split over two lines is not clickable
            console.print(Text.assemble((ex.id, "bold"), f" ({safe.inert(ex.file or 'no file')}): {passed}/{counted} checks passed"),
                          soft_wrap=True)
            for c in ex.checks:
                if verbosity < 0 and c.outcome not in ("failed", "error"):
                    continue
                _check(c, console, root, verbosity, cwd)
    style = "red" if failed(run) else "green"
    console.print(Text(summary_line(run), style=style))


def _check(c: CheckResult, console: Console, root: Path | None, verbosity: int, cwd: Path | None) -> None:
    mark, style = MARKS.get(c.outcome, ("?", ""))
    console.print(Text.assemble("  ", (mark, style), f" {c.name} ", (f"({c.kind})", "dim")), soft_wrap=True)
    if c.outcome == "not_run":
        if c.message and verbosity > 0:
            console.print(Text(f"      not run: {safe.inert(c.message)}", style="dim"))
        return
    if c.outcome not in ("failed", "error"):
        return
    lines = [_frames_clickable(line, cwd) for line in c.message.splitlines()]
    cap = None if verbosity > 0 else MESSAGE_LINES
    for line in lines[:cap]:
        _indented(console, Text(safe.inert(line)))
    if cap is not None and len(lines) > cap:
        console.print(Text(f"      … {len(lines) - cap} more line(s): -v shows them", style="dim"))
    if c.file and c.line:
        check_file = (root / c.file) if root else Path(c.file)
        _indented(console, Text(f"check: {where(check_file, cwd)}:{c.line}", style="dim"))
    if c.output.strip():
        out = c.output.rstrip().splitlines()
        shown = out if verbosity > 0 else out[-OUTPUT_LINES:]
        console.print(Text("      captured output" + (" (last lines)" if len(shown) < len(out) else "") + ":",
                           style="dim"))
        for line in shown:
            _indented(console, Text(f"| {safe.inert(line)}"))


def _indented(console: Console, text: Text) -> None:
    """Six spaces in, and a long line wraps under itself (never back at the left edge)."""
    console.print(Padding(text, (0, 0, 0, 6), expand=False))
