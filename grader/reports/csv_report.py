"""The gradebook CSV (`--csv`): one row per submission, one column per exercise (its points; with
`kinds`, one more per check kind), then score, max_score, percent, flags, tampering and status. A
cell a submission can influence (its name, path, error) that starts with `=`, `+`, `-`, `@`, a tab
or a carriage return is prefixed with `'`, so that no spreadsheet reads it as a formula."""

from __future__ import annotations

import csv
import io

from grader.catalog import CHECK_KINDS
from grader.reports.common import is_tampering
from grader.results import ExerciseResult, GradeRun, fmt_points

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: object) -> str:
    """A cell no spreadsheet evaluates: text starting like a formula gets a leading `'`."""
    text = str(text)
    return "'" + text if text.startswith(_FORMULA) else text


def _kind_points(ex: ExerciseResult) -> dict[str, float]:
    points: dict[str, float] = {}
    for c in ex.checks:
        if c.outcome != "not_run":
            points[c.kind] = points.get(c.kind, 0.0) + c.score
    return points


def render(run: GradeRun, kinds: bool = False) -> str:
    """The gradebook (see the module docstring); UTF-8, comma-separated, one header row."""
    ids = list(dict.fromkeys(ex.id for sub in run.submissions for ex in sub.exercises))
    kind_cols: dict[str, list[str]] = {}
    if kinds:
        for ex_id in ids:
            seen = {c.kind for sub in run.submissions for ex in sub.exercises if ex.id == ex_id for c in ex.checks
                    if c.outcome != "not_run"}
            kind_cols[ex_id] = [k for k in CHECK_KINDS if k in seen] + sorted(seen - set(CHECK_KINDS))
    header = ["submission", "path"]
    for ex_id in ids:
        header += [ex_id, *(f"{ex_id} {kind}" for kind in kind_cols.get(ex_id, []))]
    header += ["score", "max_score", "percent", "flags", "tampering", "status"]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(header)
    for sub in run.submissions:
        by_id = {ex.id: ex for ex in sub.exercises}
        row = [spreadsheet_safe(sub.name), spreadsheet_safe(sub.path)]
        for ex_id in ids:
            ex = by_id.get(ex_id)
            row.append(fmt_points(ex.score) if ex else "")
            points = _kind_points(ex) if ex else {}
            row += [fmt_points(points[k]) if k in points else "" for k in kind_cols.get(ex_id, [])]
        flags = [f for ex in sub.exercises for f in ex.flags]
        status = f"not graded: {sub.error}" if sub.error else "graded"
        row += [fmt_points(sub.score), fmt_points(sub.max_score), f"{sub.percent:g}", str(len(flags)),
                str(sum(is_tampering(f.message) for f in flags)), spreadsheet_safe(" ".join(status.split()))]
        writer.writerow(row)
    for missed in run.extra.get("partial", {}).get("not_graded", []):
        row = [spreadsheet_safe(missed.get("name", "")), spreadsheet_safe(missed.get("path", ""))]
        row += [""] * (len(header) - 3) + ["not graded: the run was interrupted before it"]
        writer.writerow(row)
    return buf.getvalue()
