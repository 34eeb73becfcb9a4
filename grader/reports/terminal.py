"""The terminal table: per exercise, its score and passed/total per check kind."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from grader.catalog import CHECK_KINDS
from grader.results import GradeRun, fmt_points


def render(run: GradeRun, console: Console) -> None:
    kinds = [k for k in CHECK_KINDS
             if any(k in ex.by_kind() for sub in run.submissions for ex in sub.exercises)]
    for sub in run.submissions:
        title = f"{sub.name}: {fmt_points(sub.score)} / {fmt_points(sub.max_score)} ({sub.percent:g} %)"
        if sub.error:
            console.print(f"[bold red]{sub.name}: not graded[/]: {sub.error}")
            continue
        table = Table(title=title, title_justify="left", show_lines=False)
        table.add_column("exercise")
        table.add_column("score", justify="right")
        for kind in kinds:
            table.add_column(kind, justify="right")
        for ex in sub.exercises:
            by_kind = ex.by_kind()
            cells = [f"{by_kind[k]['passed']}/{by_kind[k]['total']}" if k in by_kind else "" for k in kinds]
            table.add_row(ex.id, f"{fmt_points(ex.score)}/{fmt_points(ex.max_score)}", *cells)
        console.print(table)
        for ex in sub.exercises:
            if ex.problem:
                console.print(f"  [yellow]{ex.id}[/]: {ex.problem.splitlines()[0]}")
            for flag in ex.flags:
                console.print(f"  [magenta]flag[/] {ex.id} {flag.where}: {flag.message}")
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    env = run.environment
    console.print(f"Graded on {env.runtime} runtime, torch {env.torch or '?'}, {env.gpu_summary}.")
    if not_run:
        console.print(f"{not_run} check(s) could not run here (e.g. CUDA without a GPU) and are left out of the total.")
    for note in env.notes:
        console.print(f"[yellow]Note[/]: {note}")
    if len(run.submissions) > 1:
        console.print(f"Total: {fmt_points(run.score)} / {fmt_points(run.max_score)} ({run.percent:g} %)")


def render_checks(run: GradeRun, console: Console) -> None:
    """`grader check` output: every check with a mark and, when it failed, its message."""
    marks = {"passed": "[green]✓[/]", "failed": "[red]✗[/]", "error": "[red]![/]", "not_run": "[dim]-[/]"}
    for sub in run.submissions:
        for ex in sub.exercises:
            passed = sum(c.outcome == "passed" for c in ex.checks)
            counted = sum(c.outcome != "not_run" for c in ex.checks)
            console.print(f"[bold]{ex.id}[/] ({ex.file or 'no file'}): {passed}/{counted} checks passed")
            for c in ex.checks:
                console.print(f"  {marks[c.outcome]} {c.name} [dim]({c.kind})[/]", highlight=False)
                if c.outcome in ("failed", "error") and c.message:
                    for line in c.message.splitlines()[:12]:
                        console.print(f"      {line}", highlight=False, markup=False)
                elif c.outcome == "not_run" and c.message:
                    console.print(f"      [dim]not run: {c.message}[/]", highlight=False)
