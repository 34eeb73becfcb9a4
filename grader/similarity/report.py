"""What `grader similarity` writes: a terminal table, JSON, and one self-contained HTML page with
each pair above the threshold side by side and the matching regions highlighted (inline CSS
allowed by hash in its Content-Security-Policy, no script, nothing fetched; all text escaped).
Each also says which submissions match the exercise's reference solution (where the checkout has
it) and which could not be compared, and why."""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from pathlib import Path

from grader.similarity.engine import REFERENCE, Pair, SimilarityReport, Source

MAX_HTML_PAIRS = 300  # pairs drawn side by side (the table lists them all)

CSS = """
:root { --line: #d0d7de; --bg: #f6f8fa; --muted: #57606a; --hit: #fff3b0; --hot: #cf222e; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto;
       max-width: 1400px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid
  var(--line); padding-bottom: 4px; } h3 { font-size: 15px; margin: 18px 0 6px; }
.muted { color: var(--muted); }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; }
th { background: var(--bg); } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.high { color: var(--hot); font-weight: 600; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side figure { margin: 0; min-width: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
pre { background: var(--bg); padding: 8px; overflow: auto; max-height: 640px; margin: 0; font-size: 12px; }
.l::before { content: attr(data-n); display: inline-block; min-width: 4.5em; color: var(--muted); }
mark { background: var(--hit); }
""".strip()


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


CSP = f"default-src 'none'; style-src {_hash(CSS)}; img-src data:; base-uri 'none'; form-action 'none'"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def table(report: SimilarityReport) -> str:
    """Plain aligned columns of the pairs above the threshold."""
    rows = [("exercise", "a", "b", "score", "shared")]
    rows += [(p.exercise, p.a, p.b, f"{p.score:.2f}", str(p.shared)) for p in report.pairs]
    rows += [(p.exercise, p.a, f"the {REFERENCE}", f"{p.score:.2f}", str(p.shared)) for p in report.reference]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def write_json(report: SimilarityReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")


def write_html(report: SimilarityReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report), encoding="utf-8")


def render(report: SimilarityReport) -> str:
    title = f"torch-grader similarity: {len(report.pairs)} pair(s) at or above {report.threshold:g}"
    parts = ["<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">', '<link rel="icon" href="data:,">',
             f"<title>{_e(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
             "<h1>Similarity report</h1>",
             f'<p class="muted" id="summary">{len(report.compared)} submission(s) compared, {len(report.exercises)} '
             f"exercise(s); score = Dice coefficient of copydetect winnowing fingerprints (renaming, whitespace and "
             f"comments ignored; the stub's text and idioms shared by most submissions removed); pairs at or above "
             f'<span data-field="threshold">{report.threshold:g}</span> are shown.</p>']
    if report.failed:
        parts.append(f'<section id="not-compared"><h2>Submissions not compared ({len(report.failed)})</h2><ul>'
                     + "".join(f'<li data-submission="{_e(label)}"><strong>{_e(label)}</strong>: {_e(why)}</li>'
                               for label, why in report.failed.items()) + "</ul></section>")
    if report.problems:
        parts.append("<details><summary>Files that could not be compared "
                     f"({len(report.problems)})</summary><ul>"
                     + "".join(f"<li>{_e(p)}</li>" for p in report.problems) + "</ul></details>")
    if report.reference:
        parts.append(f'<p class="high" id="reference-summary">{len(report.reference)} answer(s) match the '
                     f"exercise's reference solution at or above {report.threshold:g}: see each exercise.</p>")
    numbered = list(enumerate(report.pairs + report.reference, 1))
    for ex in report.exercises:
        refs = [(n, p) for n, p in numbered if p.exercise == ex.id and p.b == REFERENCE]
        mine = [(n, p) for n, p in numbered if p.exercise == ex.id and p.b != REFERENCE]
        parts.append(f'<section class="exercise" data-exercise="{_e(ex.id)}"><h2>{_e(ex.id)}: {_e(ex.title)}</h2>')
        parts.append(f'<p class="muted">{len(report.sources.get(ex.id, {}))} file(s), {len(mine)} pair(s) above '
                     f"the threshold</p>")
        if mine:
            rows = "".join(
                f'<tr data-a="{_e(p.a)}" data-b="{_e(p.b)}"><td><a href="#pair-{n}">{_e(p.a)} · {_e(p.b)}</a></td>'
                f'<td class="num high" data-field="score">{p.score:.2f}</td><td class="num">{p.shared}</td>'
                f'<td class="num">{p.size_a} / {p.size_b}</td></tr>' for n, p in mine)
            parts.append('<table class="pairs"><thead><tr><th>pair</th><th>score</th><th>shared</th>'
                         f"<th>fingerprints</th></tr></thead><tbody>{rows}</tbody></table>")
        if refs:
            rows = "".join(
                f'<tr data-a="{_e(p.a)}" data-b="reference"><td><a href="#pair-{n}">{_e(p.a)}</a></td>'
                f'<td class="num high" data-field="score">{p.score:.2f}</td><td class="num">{p.shared}</td></tr>'
                for n, p in refs)
            shown = report.references[ex.id].shown
            parts.append(f'<h3>Matching the reference solution <span class="muted">{_e(shown)}</span></h3>'
                         '<table class="reference"><thead><tr><th>submission</th><th>score</th><th>shared</th>'
                         f"</tr></thead><tbody>{rows}</tbody></table>")
        parts += [_pair(report, n, p) for n, p in mine + refs if n <= MAX_HTML_PAIRS]
        parts.append("</section>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _pair(report: SimilarityReport, number: int, pair: Pair) -> str:
    regions_a, regions_b = report.regions(pair)
    return (f'<section class="pair" id="pair-{number}" data-exercise="{_e(pair.exercise)}" data-a="{_e(pair.a)}" '
            f'data-b="{_e(pair.b)}" data-score="{pair.score:.4f}"><h3>{_e(pair.a)} · {_e(pair.b)}: '
            f"{pair.score:.2f}</h3><div class=\"side\">"
            + _code(report.source(pair.exercise, pair.a), regions_a, "a")
            + _code(report.source(pair.exercise, pair.b), regions_b, "b") + "</div></section>")


def _code(source: Source, regions: list[tuple[int, int]], side: str) -> str:
    text = source.text
    out, pos = [], 0
    for start, end in regions:
        out.append(_e(text[pos:start]) + "<mark>" + _e(text[start:end]) + "</mark>")
        pos = end
    out.append(_e(text[pos:]))
    lines = "".join(out).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    labelled = []
    for number, line in enumerate(lines, 1):
        if source.linemap is not None:
            cell, local = source.linemap.cell_line(number)
            label = f"c{cell}:{local}" if cell else str(number)
        else:
            label = str(number)
        labelled.append(f'<span class="l" data-n="{label}">{line}</span>')
    return (f'<figure data-side="{side}"><figcaption>{_e(source.submission)} <span class="muted">'
            f"{_e(source.shown)}</span></figcaption><pre>" + "\n".join(labelled) + "</pre></figure>")
