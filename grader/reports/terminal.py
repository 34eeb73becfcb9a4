"""The terminal table: per exercise, its score and passed/total per check kind; and plain aligned
columns (`columns`) for the lists the CLI and `grader watch` print."""

from __future__ import annotations

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from grader.catalog import CHECK_KINDS
from grader.reports import safe
from grader.reports.common import is_tampering, partial_line
from grader.results import GradeRun, SubmissionResult, fmt_points, pack_notes

MAX_REASONS = 6  # failed checks listed per exercise without --verbose


def render(run: GradeRun, console: Console, verbose: bool = False) -> None:
    """The score table of each submission (its own score: never a total across candidates), then
    under it why points were lost: submission-level problems always, each failed check's one-line
    reason (whole messages with `verbose`). Fits the console's width (80 columns included)."""
    kinds = [k for k in CHECK_KINDS
             if any(k in ex.by_kind() for sub in run.submissions for ex in sub.exercises)]
    partial = partial_line(run)
    if partial:  # Ctrl-C / SIGTERM: what follows is not the whole batch
        console.print(Text(safe.inert(partial[0].upper() + partial[1:]), style="bold yellow"))
    for sub in run.submissions:
        title = f"{safe.inert(sub.name)}: {fmt_points(sub.score)} / {fmt_points(sub.max_score)} ({sub.percent:g} %)"
        if sub.error:
            console.print(Text(f"{title}: not graded: {safe.inert(sub.error)}", style="bold red"))
            continue
        console.print(_table(sub, kinds, title, console.width))
        _reasons(sub, console, verbose)
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    env = run.environment
    if env.torch:
        console.print(f"Graded on {env.runtime} runtime, torch {env.torch}, {env.gpu_summary}.")
    elif not run.submissions:
        console.print(f"Nothing was graded ({env.runtime} runtime).")
    else:  # every submission failed before its judge reported (torch unknown)
        console.print(f"Graded on {env.runtime} runtime.")
    if env.exercise_root:
        console.print(Text(f"Exercises and checks from {env.exercise_root}."))
    if not_run:
        console.print(f"{not_run} check(s) could not run here (e.g. CUDA without a GPU) and are left out of the total.")
    for note in env.notes:
        console.print(Text.assemble(("Note", "yellow"), f": {safe.inert(note)}"))
    for line in pack_notes(run):  # exercises from packs: which pack and version, torch warnings
        console.print(Text.assemble(("Note", "yellow"), f": {safe.inert(line)}"))


def _table(sub: SubmissionResult, kinds: list[str], title: str, width: int) -> Table:
    scores = [f"{fmt_points(ex.score)}/{fmt_points(ex.max_score)}" for ex in sub.exercises]
    id_width = max([len("exercise"), *(len(ex.id) for ex in sub.exercises)])
    natural = 1 + (id_width + 3) + (max([5, *map(len, scores)]) + 3) + sum(max(len(k), 3) + 3 for k in kinds)
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("exercise", overflow="fold")
    table.add_column("score", justify="right", no_wrap=True)
    compact = natural > width
    if compact:  # one wrapping column instead of a column per kind: nothing is cut with "…"
        table.add_column("checks passed by kind", overflow="fold")
    else:
        for kind in kinds:
            table.add_column(kind, justify="right")
    for ex, score in zip(sub.exercises, scores):
        by_kind = ex.by_kind()
        if compact:
            cells = [" ".join(f"{k} {v['passed']}/{v['total']}" for k, v in by_kind.items())]
        else:
            cells = [f"{by_kind[k]['passed']}/{by_kind[k]['total']}" if k in by_kind else "" for k in kinds]
        table.add_row(ex.id, score, *cells)
    return table


def _reasons(sub: SubmissionResult, console: Console, verbose: bool) -> None:
    for ex in sub.exercises:
        failed = [c for c in ex.checks if c.outcome in ("failed", "error")]
        firsts = {_first_line(c.message or c.outcome) for c in failed}
        if ex.problem:
            console.print(Text.assemble("  ", (ex.id, "yellow"), f": {_first_line(ex.problem)}"))
            firsts.discard(_first_line(ex.problem))
            failed = [c for c in failed if _first_line(c.message) in firsts]
        elif len(failed) > 1 and len(firsts) == 1 and len(failed) == len(ex.checks) - ex.not_run:
            # one cause for every check (a syntax error, an import error, a missing function)
            console.print(Text.assemble("  ", (ex.id, "red"), f": every check failed: {firsts.pop()}"))
            failed = []
        shown = failed if verbose else failed[:MAX_REASONS]
        for c in shown:
            lines = (c.message or c.outcome).strip().splitlines() or [c.outcome]
            # indented as a block: a long reason wraps under itself, not under the table's left edge
            console.print(Padding(Text.assemble((ex.id, "red"), f" {c.name}: ", safe.inert(lines[0]) if not verbose else ""),
                                  (0, 0, 0, 2), expand=False))
            if verbose:
                for line in lines[:40]:
                    console.print(Padding(Text(safe.inert(line)), (0, 0, 0, 6), expand=False))
        if len(failed) > len(shown):
            console.print(Text(f"  {ex.id}: {len(failed) - len(shown)} more failed check(s): see -v or a report"))
        for flag in ex.flags:  # tampering voids the exercise; the rest are notes for the interviewer
            label = ("tampering", "bold red") if is_tampering(flag.message) else ("note", "magenta")
            console.print(Text.assemble("  ", label, f" {ex.id} {flag.where}: {safe.inert(flag.message)}"))


def _first_line(text: str) -> str:
    stripped = text.strip()
    return safe.inert(stripped.splitlines()[0]) if stripped else ""


def render_checks(run: GradeRun, console: Console) -> None:
    """`grader check` output: see grader.reports.check_view (kept here for old callers)."""
    from grader.reports.check_view import render_checks as view

    view(run, console)


def columns(rows: list[tuple[str, ...]], right: set[int] = frozenset()) -> str:
    """Plain aligned columns (no trailing spaces), for output that scripts and tests can read.
    `right`: the indexes of the columns aligned right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
