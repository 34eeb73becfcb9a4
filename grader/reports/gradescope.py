"""Gradescope's results.json (one submission): a test per check, scores as points."""

from __future__ import annotations

import json

from grader.reports import safe
from grader.reports.common import partial_line
from grader.results import GradeRun, pack_notes


def render(run: GradeRun) -> str:
    tests = []
    for sub in run.submissions:
        for ex in sub.exercises:
            for check in ex.checks:
                if check.outcome == "not_run":
                    continue
                tests.append({
                    "name": f"{ex.id}: {check.name}",
                    "number": ex.id.split("_", 1)[0],
                    "score": check.score,
                    "max_score": check.max_score,
                    "status": "passed" if check.outcome == "passed" else "failed",
                    "output": safe.plain(check.message, newlines=True),
                    "output_format": "text",
                    "tags": [check.kind],
                    "visibility": "visible" if check.visibility == "public" else "after_due_date",
                })
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    output = f"Graded on {run.environment.runtime} ({run.environment.gpu_summary})."
    if partial_line(run):  # Ctrl-C / SIGTERM: not every submission was graded
        output = f"{safe.plain(partial_line(run))}. {output}"
    if not_run:
        output += f" {not_run} check(s) could not run here and are left out of the total."
    for line in pack_notes(run):  # exercises from packs: which pack and version, torch warnings
        output += f" {safe.plain(line)}."
    return json.dumps({"score": run.score, "execution_time": round(run.duration_s, 2), "output": output,
                       "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}, indent=2) + "\n"
