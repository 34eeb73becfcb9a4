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
    """A standalone page: scores per exercise and check kind, survivors as diffs. Everything escaped.
    It looks like the grading report (grader.reports.html: the same style sheet and
    Content-Security-Policy, nothing fetched)."""
    path.write_text(render_html(run), encoding="utf-8")


def render_html(run: MutationRun) -> str:
    from grader.reports.html import CSP, CSS

    e_ = html.escape
    score = run.to_dict()["score"]
    title = f"torch-grader: mutation score {_pct(score)}"
    parts = ["<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">', '<link rel="icon" href="data:,">',
             f"<title>{e_(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>", "<header>",
             "<h1>Mutation report</h1>",
             f'<p class="total" id="total">Mutation score <span data-field="score">{e_(_pct(score))}</span> '
             f"(killed ÷ non-equivalent mutants)</p>",
             f'<p class="meta">{run.graded} mutants graded in {run.duration_s:.1f} s'
             f"{' — interrupted: rerun to go on' if run.interrupted else ''}</p>", "</header>",
             '<section id="exercises"><h2>Exercises</h2>',
             '<table class="exercises"><thead><tr><th>exercise</th><th class="num">mutants</th><th class="num">killed</th>'
             '<th class="num">survived</th><th class="num">equivalent</th><th class="num">score</th>'
             "<th>killed by check kind</th></tr></thead><tbody>"]
    for e in run.exercises:
        kinds = ", ".join(f"{k} {100 * v['score']:.0f} %" for k, v in e.by_kind().items())
        cls = "full" if e.ok else "zero"
        parts.append(f'<tr data-exercise="{e_(e.exercise.id)}"><td>{e_(e.exercise.id)}</td>'
                     f'<td class="num">{len(e.results) + e.pending}</td><td class="num">{len(e.killed)}</td>'
                     f'<td class="num">{len(e.survivors)}</td><td class="num">{len(e.equivalent)}</td>'
                     f'<td class="num {cls}">{e_(_pct(e.score))}</td><td>{e_(kinds)}</td></tr>')
    parts.append("</tbody></table></section>")
    for e in run.exercises:
        if not (e.problem or e.survivors or e.equivalent or e.stale):
            continue
        parts.append(f'<section class="exercise" data-exercise="{e_(e.exercise.id)}"><h2>{e_(e.exercise.id)}</h2>')
        if e.problem:
            parts.append(f'<p class="error-box">{e_(e.problem)}</p>')
        for r in e.survivors:
            parts.append(f'<div class="check"><div class="check-head"><span class="badge">survived</span> Survivor '
                         f"<code>{e_(r.mutant.id)}</code> ({e_(r.mutant.operator)}, line {r.mutant.line})</div>"
                         f'<div class="where">passed: {e_(", ".join(r.passed))}</div>'
                         f"<pre>{e_(r.mutant.diff)}</pre></div>")
        for stale in e.stale:
            parts.append(f'<p class="error-box">stale equivalent entry: {e_(stale)}</p>')
        if e.equivalent:
            parts.append("<h3>Accepted equivalent mutants</h3><ul>" + "".join(
                f"<li><code>{e_(r.mutant.id)}</code> <code>{e_(r.mutant.change)}</code>: {e_(r.reason)}</li>"
                for r in e.equivalent) + "</ul>")
        parts.append("</section>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"
