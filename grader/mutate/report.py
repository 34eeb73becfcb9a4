"""What `grader mutate` prints and writes: a text summary, --json and --html."""

from __future__ import annotations

import html
import json
from pathlib import Path

from grader.mutate.engine import MutationRun


def _pct(score: float | None) -> str:
    return "-" if score is None else f"{100 * score:.1f} %"


def text(run: MutationRun) -> str:
    """The terminal summary: a table, then every survivor as a diff with the checks it passed."""
    rows = [("exercise", "mutants", "killed", "survived", "equivalent", "score", "status")]
    for e in run.exercises:
        status = "ok" if e.ok else ("ERROR" if e.problem else "FAIL")
        rows.append((e.exercise.id, str(len(e.results) + e.pending), str(len(e.killed)), str(len(e.survivors)),
                     str(len(e.equivalent)), _pct(e.score), status))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    for e in run.exercises:
        if e.problem:
            lines += ["", f"{e.exercise.id}: {e.problem}"]
        for r in e.survivors:
            lines += ["", f"{e.exercise.id}: SURVIVOR {r.mutant.id} ({r.mutant.operator}, line {r.mutant.line}) "
                          f"scores {r.score:g}/{r.max_score:g}; it passed {', '.join(r.passed)}",
                      r.mutant.diff.rstrip()]
        for r in e.errors:
            lines += ["", f"{e.exercise.id}: mutant {r.mutant.id} could not be graded: {r.reason}"]
        for s in e.stale:
            lines.append(f"{e.exercise.id}: stale equivalent entry {s}")
        if e.equivalent:
            lines.append(f"{e.exercise.id}: {len(e.equivalent)} accepted equivalent mutant(s): "
                         + "; ".join(f"{r.mutant.id} ({r.reason})" for r in e.equivalent))
        if e.pending:
            lines.append(f"{e.exercise.id}: {e.pending} mutant(s) not graded yet")
    total = run.to_dict()["score"]
    cached = sum(len(e.results) for e in run.exercises) - run.graded - sum(len(e.errors) for e in run.exercises)
    lines += ["", f"mutation score {_pct(total)}; {run.graded} mutants graded in {run.duration_s:.1f} s"
                  + (f", {cached} from the cache" if cached > 0 else "")]
    return "\n".join(lines)


def write_json(run: MutationRun, path: Path) -> None:
    path.write_text(json.dumps(run.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def write_html(run: MutationRun, path: Path) -> None:
    """A standalone page: scores per exercise and check kind, survivors as diffs. Everything escaped."""
    e_ = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>torch-grader: mutation report</title>",
             "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left}"
             "pre{background:#f6f6f6;padding:6px}.bad{color:#b00}.ok{color:#070}</style></head><body>",
             f"<h1>Mutation report</h1><p>Mutation score {e_(_pct(run.to_dict()['score']))} "
             f"(killed ÷ non-equivalent mutants){' — interrupted' if run.interrupted else ''}.</p>",
             "<table><tr><th>exercise</th><th>mutants</th><th>killed</th><th>survived</th><th>equivalent</th>"
             "<th>score</th><th>killed by check kind</th></tr>"]
    for e in run.exercises:
        kinds = ", ".join(f"{k} {100 * v['score']:.0f} %" for k, v in e.by_kind().items())
        parts.append(f"<tr class='{'ok' if e.ok else 'bad'}'><td>{e_(e.exercise.id)}</td>"
                     f"<td>{len(e.results) + e.pending}</td><td>{len(e.killed)}</td><td>{len(e.survivors)}</td>"
                     f"<td>{len(e.equivalent)}</td><td>{e_(_pct(e.score))}</td><td>{e_(kinds)}</td></tr>")
    parts.append("</table>")
    for e in run.exercises:
        if not (e.problem or e.survivors or e.equivalent or e.stale):
            continue
        parts.append(f"<h2>{e_(e.exercise.id)}</h2>")
        if e.problem:
            parts.append(f"<p class='bad'>{e_(e.problem)}</p>")
        for r in e.survivors:
            parts.append(f"<h3 class='bad'>Survivor {e_(r.mutant.id)} ({e_(r.mutant.operator)}, line "
                         f"{r.mutant.line})</h3><p>passed: {e_(', '.join(r.passed))}</p>"
                         f"<pre>{e_(r.mutant.diff)}</pre>")
        for s in e.stale:
            parts.append(f"<p class='bad'>stale: {e_(s)}</p>")
        if e.equivalent:
            parts.append("<h3>Accepted equivalent mutants</h3><ul>" + "".join(
                f"<li><code>{e_(r.mutant.id)}</code> <code>{e_(r.mutant.change)}</code>: {e_(r.reason)}</li>"
                for r in e.equivalent) + "</ul>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")
