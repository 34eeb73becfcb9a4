"""HTML report: one self-contained page (inline CSS and a small inline script, no network fetch).

Scores come first: with several submissions an overview table, sortable by any column, linking to
each one (and each back to it); each submission's exercises with their score and passed/total per
check kind, tampering detected, notes for the interviewer (static flags, notebook magics dropped),
every failing check with its message and where the check is. The grading environment (runtime,
torch, CUDA and GPUs or "graded without GPU", protections, notes) comes last, collapsed. A run
interrupted by Ctrl-C or SIGTERM says how many submissions were graded and which were not.

Everything taken from the run is escaped (messages carry the candidate's exception text), and a
Content-Security-Policy allows only this page's own style and script, by hash: the page can fetch
nothing and runs no other script.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape

from grader.catalog import CHECK_KINDS
from grader.reports.common import is_tampering, partial_line, said_by_problem
from grader.reports.timeline import progress_section
from grader.results import (
    Environment,
    ExerciseResult,
    GradeRun,
    SubmissionResult,
    fmt_points,
    pack_notes,
    safe_text,
)

CSS = """
:root { --ok: #1a7f37; --part: #9a6700; --bad: #cf222e; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto;
       max-width: 1200px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.total { font-size: 20px; margin: 4px 0; }
.muted, .meta { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \\2195"; color: #8c959f; }
table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; color: #1f2328; }
table.sortable th[aria-sort="descending"]::after { content: " \\2193"; color: #1f2328; }
.full { color: var(--ok); font-weight: 600; } .partial { color: var(--part); font-weight: 600; }
.zero { color: var(--bad); font-weight: 600; }
dl.env { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.env dt { font-weight: 600; } dl.env dd { margin: 0; }
.check { border: 1px solid var(--line); border-left: 4px solid var(--bad); border-radius: 4px; margin: 8px 0;
         padding: 6px 10px; }
.check.error { border-left-color: #8250df; }
.check-head code { font-weight: 600; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; color: #fff;
         background: var(--bad); }
.check.error .badge { background: #8250df; }
pre { background: var(--bg); padding: 8px; overflow: auto; max-height: 320px; white-space: pre-wrap;
      word-break: break-word; margin: 6px 0 0; }
.flags li { color: #8250df; } .flags { border-left: 4px solid #8250df; padding: 6px 10px 6px 28px;
  background: #fbefff; }
.flags.tampering li { color: var(--bad); } .flags.tampering { border-left-color: var(--bad); background: #ffebe9; }
.back { font-size: 13px; margin: 0 0 8px; }
details#environment { margin-top: 32px; border-top: 1px solid var(--line); padding-top: 8px; }
details#environment > summary { font-size: 19px; font-weight: 600; color: #1f2328; }
.error-box { border-left: 4px solid var(--bad); background: #ffebe9; padding: 6px 10px; }
.where { font-family: ui-monospace, monospace; font-size: 12px; color: var(--muted); }
details { margin: 6px 0; } summary { cursor: pointer; color: var(--muted); }
""".strip()

# Sorts any table.sortable by the clicked column (numbers by data-value, text otherwise).
SCRIPT = """
(function () {
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-type") === "number";
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    function key(row) {
      var cell = row.cells[index];
      var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
      return numeric ? parseFloat(raw) : raw.toLowerCase();
    }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (numeric) {
        if (isNaN(x) || isNaN(y)) { return isNaN(x) - isNaN(y); }
        return (x - y) * dir;
      }
      return x.localeCompare(y) * dir;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.tabIndex = 0;
    th.addEventListener("click", function () { sortBy(th); });
    th.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(th); }
    });
  });
})();
""".strip()


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


CSP = (f"default-src 'none'; style-src {_hash(CSS)}; script-src {_hash(SCRIPT)}; img-src data:; "
       f"base-uri 'none'; form-action 'none'")


def _e(value: object) -> str:
    return escape(safe_text(str(value)), quote=True)  # safe_text: no surrogate can fail the page's encoding


def _anchor(index: int, name: str) -> str:
    return f"sub-{index}-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "submission")


def _grade_class(score: float, max_score: float) -> str:
    if max_score and score >= max_score:
        return "full"
    return "partial" if score > 0 else "zero"


def _score_cells(score: float, max_score: float) -> str:
    cls = _grade_class(score, max_score)
    return (f'<td class="num {cls}" data-field="score" data-value="{score:g}">{fmt_points(score)}</td>'
            f'<td class="num" data-field="max-score" data-value="{max_score:g}">{fmt_points(max_score)}</td>')


def _kinds(run: GradeRun) -> list[str]:
    return [k for k in CHECK_KINDS if any(k in ex.by_kind() for sub in run.submissions for ex in sub.exercises)]


def render(run: GradeRun) -> str:
    several = run.asked > 1  # each scored on its own: no total across different candidates
    partial = partial_line(run)
    title = (f"torch-grader: {len(run.submissions)} of {run.asked} submissions graded (interrupted)" if partial
             else f"torch-grader: {len(run.submissions)} submissions" if several else
             f"torch-grader: {fmt_points(run.score)} / {fmt_points(run.max_score)} ({run.percent:g} %)")
    anchors = [_anchor(i, sub.name) for i, sub in enumerate(run.submissions, 1)]
    kinds = _kinds(run)
    parts = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>torch-grader report</h1>",
        _partial(run) if partial else "",
        '<p class="total">Each submission is scored on its own: see the overview.</p>' if several else
        f'<p class="total" id="total">Total: <span data-field="score">{fmt_points(run.score)}</span> / '
        f'<span data-field="max-score">{fmt_points(run.max_score)}</span> '
        f'(<span data-field="percent">{run.percent:g}</span> %)</p>',
        f'<p class="meta">{len(run.submissions)} submission(s) graded {_e(run.started_at)} in '
        f"{run.duration_s:.1f} s by torch-grader {_e(run.tool_version)}</p>",
        "</header>",
    ]
    if several:
        parts.append(_overview(run, anchors))
    guides = run.extra.get("guides", {})
    for sub, anchor in zip(run.submissions, anchors):
        parts.append(_submission(sub, anchor, kinds, guides, back=several,
                                 notes_title=_notes_title(run)))
        parts.append(progress_section(sub.name, run.extra.get("progress", {}).get(sub.name)))
    parts.append(_environment(run.environment, run))  # after the scores, collapsed
    parts += [f"<script>{SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _partial(run: GradeRun) -> str:
    """The banner of an interrupted run: N of M graded, and the submissions that were not."""
    partial = run.extra["partial"]
    missed = "".join(f'<li data-submission="{_e(item.get("name", ""))}">{_e(item.get("name", ""))} '
                     f'<span class="muted">{_e(item.get("path", ""))}</span></li>'
                     for item in partial.get("not_graded", []))
    return (f'<div class="error-box" id="partial"><strong>Interrupted:</strong> '
            f'<span data-field="graded">{int(partial.get("graded", 0))}</span> of '
            f'<span data-field="total">{int(partial.get("total", 0))}</span> submissions graded'
            + (f"; not graded:<ul>{missed}</ul>" if missed else "") + "</div>")


def _notes_title(run: GradeRun) -> str:
    return "Notes on your code" if run.extra.get("audience") == "candidate" else "Notes for the interviewer"


def _environment(env: Environment, run: GradeRun) -> str:
    gpu = f"CUDA {env.cuda} · {env.gpu_summary}" if env.cuda and env.gpus else env.gpu_summary
    torch = env.torch or ("not known: nothing was graded" if not run.submissions else "not known")
    rows = [("Runtime", "runtime", env.runtime), ("Python", "python", env.python or "?"),
            ("torch", "torch", torch), ("CUDA / GPU", "gpu", gpu)]
    if env.exercise_root:
        rows.append(("Exercises from", "exercise-root", env.exercise_root))
    items = [f'<dt>{label}</dt><dd data-field="{field}">{_e(value)}</dd>' for label, field, value in rows]
    protections = "".join(f"<li>{_e(p)}</li>" for p in env.protections) or "<li>none reported</li>"
    items.append(f'<dt>Protections</dt><dd data-field="protections"><ul>{protections}</ul></dd>')
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    notes = list(env.notes) + pack_notes(run)  # exercises from packs: pack and version, torch warnings
    if not_run:
        notes.append(f"{not_run} check(s) could not run here (for example CUDA checks without a GPU) and are left "
                     f"out of the possible total.")
    if notes:
        items.append("<dt>Notes</dt><dd><ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></dd>")
    return ('<details id="environment">\n<summary>Grading environment</summary>\n<dl class="env">' + "".join(items)
            + "</dl>\n</details>")


def _overview(run: GradeRun, anchors: list[str]) -> str:
    exercise_ids = list(dict.fromkeys(ex.id for sub in run.submissions for ex in sub.exercises))
    head = ['<th data-type="text">submission</th>', '<th class="num" data-type="number">score</th>',
            '<th class="num" data-type="number">max</th>', '<th class="num" data-type="number">%</th>']
    head += [f'<th class="num" data-type="number" title="{_e(ex_id)}">{_e(ex_id.split("_", 1)[0])}</th>'
             for ex_id in exercise_ids]
    head.append('<th class="num" data-type="number">flags</th>')
    rows = []
    for sub, anchor in zip(run.submissions, anchors):
        by_id = {ex.id: ex for ex in sub.exercises}
        cells = [f'<td data-value="{_e(sub.name)}"><a href="#{anchor}">{_e(sub.name)}</a>'
                 + (' <span class="zero">not graded</span>' if sub.error else "") + "</td>",
                 _score_cells(sub.score, sub.max_score),
                 f'<td class="num" data-field="percent" data-value="{sub.percent:g}">{sub.percent:g}</td>']
        for ex_id in exercise_ids:
            ex = by_id.get(ex_id)
            if ex is None:
                cells.append('<td class="num muted" data-value="">–</td>')
            else:
                cls = _grade_class(ex.score, ex.max_score)
                cells.append(f'<td class="num {cls}" data-exercise="{_e(ex.id)}" data-value="{ex.score:g}">'
                             f"{fmt_points(ex.score)}</td>")
        flags = sum(len(ex.flags) for ex in sub.exercises)
        cells.append(f'<td class="num" data-field="flags" data-value="{flags}">{flags or ""}</td>')
        rows.append(f'<tr data-submission="{_e(sub.name)}">' + "".join(cells) + "</tr>")
    return ('<section id="overview">\n<h2>Submissions</h2>\n'
            '<p class="muted">Click a column to sort; click a name to see its checks.</p>\n'
            '<table class="sortable" id="overview-table"><thead><tr>' + "".join(head) + "</tr></thead>\n<tbody>\n"
            + "\n".join(rows) + "\n</tbody></table>\n</section>")


def _submission(sub: SubmissionResult, anchor: str, kinds: list[str], guides: dict | None = None,
                back: bool = False, notes_title: str = "Notes for the interviewer") -> str:
    out = [f'<section class="submission" id="{anchor}" data-submission="{_e(sub.name)}">',
           f'<h2>{_e(sub.name)}: <span data-field="score">{fmt_points(sub.score)}</span> / '
           f'<span data-field="max-score">{fmt_points(sub.max_score)}</span> '
           f'(<span data-field="percent">{sub.percent:g}</span> %)</h2>']
    if back:
        out.append('<p class="back"><a href="#overview">&uarr; Back to the overview</a></p>')
    if sub.error:
        out.append(f'<p class="error-box"><strong>Not graded:</strong> {_e(sub.error)}</p>')
    if sub.exercises:
        head = ['<th data-type="text">exercise</th>', '<th class="num" data-type="number">score</th>',
                '<th class="num" data-type="number">max</th>']
        head += [f'<th class="num" data-type="number">{_e(k)}</th>' for k in kinds]
        rows = []
        for ex in sub.exercises:
            by_kind = ex.by_kind()
            cells = [f'<td data-value="{_e(ex.id)}">{_e(ex.id)}<br><span class="muted">{_e(ex.title)}</span></td>',
                     _score_cells(ex.score, ex.max_score)]
            for kind in kinds:
                if kind in by_kind:
                    passed, total = by_kind[kind]["passed"], by_kind[kind]["total"]
                    cls = "full" if passed == total else ("partial" if passed else "zero")
                    cells.append(f'<td class="num {cls}" data-kind="{kind}" data-value="{passed / total:g}">'
                                 f"{passed}/{total}</td>")
                else:
                    cells.append('<td class="num" data-value=""></td>')
            rows.append(f'<tr data-exercise="{_e(ex.id)}">' + "".join(cells) + "</tr>")
        out.append('<table class="sortable exercises"><thead><tr>' + "".join(head) + "</tr></thead>\n<tbody>\n"
                   + "\n".join(rows) + "\n</tbody></table>")
    for ex in sub.exercises:
        if ex.problem:
            out.append(f'<p class="error-box"><strong>{_e(ex.id)}:</strong> {_e(ex.problem.splitlines()[0])}</p>')
    flagged = [(ex, f) for ex in sub.exercises for f in ex.flags]
    tampering = [(ex, f) for ex, f in flagged if is_tampering(f.message)]  # the exercise is voided
    notes = [(ex, f) for ex, f in flagged if not is_tampering(f.message)]  # static flags, notebook magics
    for title, cls, shown in (("Tampering detected", "flags tampering", tampering), (notes_title, "flags", notes)):
        if shown:
            out.append(f"<h3>{title}</h3>")
            out.append(f'<ul class="{cls}">' + "".join(
                f'<li data-exercise="{_e(ex.id)}">{_e(ex.id)} {f.where}: {_e(f.message)}</li>' for ex, f in shown)
                + "</ul>")
    failing = [(ex, c) for ex in sub.exercises for c in ex.checks if c.outcome in ("failed", "error")
               and not said_by_problem(ex, c)]  # those the exercise's problem, above, explains
    if failing:
        out.append(f"<h3>Failing checks ({len(failing)})</h3>")
        out += [_failing_check(ex, c) for ex, c in failing]
    out += [_all_checks(ex) for ex in sub.exercises]
    out += [_follow_ups(ex.id, (guides or {})[ex.id]) for ex in sub.exercises if ex.id in (guides or {})]
    out.append("</section>")
    return "\n".join(out)


def _follow_ups(ex_id: str, guide: dict) -> str:
    """The interviewer's guide's follow-up questions for one exercise (interviewer's report only)."""
    minutes = f", about {guide['minutes']} minutes" if guide.get("minutes") else ""
    items = "".join(f"<li>{_e(re.sub(r'^[0-9]+[.] *', '', q).replace('**', ''))}</li>" for q in guide["follow_ups"])
    return (f'<details class="follow-ups" data-exercise="{_e(ex_id)}"><summary>{_e(ex_id)}: follow-up questions '
            f"(interviewer's guide{minutes})</summary><ol>{items}</ol>"
            f'<p class="muted">Whole guide: <code>grader show {_e(ex_id[:2])} --interviewer</code></p></details>')


def _failing_check(ex: ExerciseResult, check) -> str:
    where = f"{check.file}:{check.line}" if check.file else "(no source location)"
    yours = f" · your file: {_e(ex.file)}" if ex.file else ""
    return (f'<div class="check {check.outcome}" data-exercise="{_e(ex.id)}" data-check="{_e(check.name)}">'
            f'<div class="check-head"><span class="badge">{check.outcome}</span> {_e(ex.id)} '
            f"<code>{_e(check.name)}</code> ({_e(check.kind)}, {_e(check.visibility)}, "
            f"{fmt_points(check.max_score)} pts)</div>"
            f'<div class="where">check at {_e(where)}{yours}</div>'
            f"<pre>{_e(check.message or check.outcome)}</pre></div>")


def _all_checks(ex: ExerciseResult) -> str:
    rows = "".join(
        f'<tr class="{c.outcome}"><td><code>{_e(c.name)}</code></td><td>{_e(c.kind)}</td><td>{_e(c.visibility)}</td>'
        f"<td>{c.outcome.replace('_', ' ')}</td><td class=\"num\">{fmt_points(c.score)}</td>"
        f'<td class="num">{fmt_points(c.max_score)}</td></tr>'
        for c in ex.checks)
    return (f"<details><summary>{_e(ex.id)}: all {len(ex.checks)} checks</summary>"
            '<table><thead><tr><th>check</th><th>kind</th><th>visibility</th><th>outcome</th>'
            '<th class="num">points</th><th class="num">of</th></tr></thead><tbody>'
            f"{rows}</tbody></table></details>")
