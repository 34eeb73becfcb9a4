"""The HTML report's progress timeline, for submissions from a bundle exported with
`grader export --record-progress`: per exercise, the public score of each recorded run over time,
hints marked. The record is written on the candidate's machine, so the section says it is
unverified; every value is type-checked on reading (`grader.progress_record.read_progress`) and
escaped here."""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT, PAD = 480, 60, 6


def _points(entries: list[dict]) -> list[tuple[float, float, dict]]:
    n = len(entries)
    step = (WIDTH - 2 * PAD) / max(n - 1, 1)
    out = []
    for i, e in enumerate(entries):
        fraction = e["passed"] / e["total"] if e["total"] > 0 else 0.0
        fraction = min(max(fraction, 0.0), 1.0)
        out.append((PAD + i * step, HEIGHT - PAD - fraction * (HEIGHT - 2 * PAD), e))
    return out


def _svg(ex_id: str, entries: list[dict]) -> str:
    points = _points(entries)
    checks = [(x, y, e) for x, y, e in points if e["event"] == "check"]
    parts = [f'<svg class="timeline" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="public score of {escape(ex_id)} over time">',
             f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#f6f8fa" stroke="#d0d7de"/>']
    if len(checks) > 1:
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in checks)
        parts.append(f'<polyline points="{line}" fill="none" stroke="#57606a" stroke-width="1.5"/>')
    for x, y, e in points:
        label = escape(f"{e['time']}: {e['passed']}/{e['total']} public checks, {e['hints']} hint(s) seen")
        if e["event"] == "hint":
            parts.append(f'<g class="hint" data-event="hint"><title>{label} (hint shown)</title>'
                         f'<rect x="{x - 4:.1f}" y="{PAD - 4}" width="8" height="8" fill="#9a6700"/></g>')
        else:
            color = "#1a7f37" if e["total"] and e["passed"] == e["total"] else "#cf222e"
            parts.append(f'<g class="run" data-event="check"><title>{label}</title>'
                         f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def progress_section(name: str, entries: list[dict] | None) -> str:
    """The timeline section of one submission ("" when it has no progress record)."""
    if not entries:
        return ""
    by_exercise: dict[str, list[dict]] = {}
    for e in entries:
        by_exercise.setdefault(e["exercise"], []).append(e)
    rows = []
    for ex_id, items in sorted(by_exercise.items()):
        last = next((e for e in reversed(items) if e["event"] == "check"), None)
        summary = f"last {last['passed']}/{last['total']}" if last else "no run"
        hints = max(e["hints"] for e in items)
        rows.append(f'<tr data-exercise="{escape(ex_id)}"><td>{escape(ex_id)}<br><span class="muted">'
                    f"{sum(e['event'] == 'check' for e in items)} run(s), {escape(summary)}, {hints} hint(s); "
                    f"{escape(items[0]['time'])} to {escape(items[-1]['time'])}</span></td>"
                    f"<td>{_svg(ex_id, items)}</td></tr>")
    return (f'<section class="progress" data-submission="{escape(name)}">\n'
            f"<h3>{escape(name)}: progress record (unverified)</h3>\n"
            f'<p class="muted">Recorded on the candidate\'s machine by the bundle (exported with '
            f"--record-progress) and not verified: the candidate could have edited it. Each dot is a public "
            f"run (height: public checks passed; green: all), each square a hint shown.</p>\n"
            f'<table class="progress"><thead><tr><th>exercise</th><th>public score over time</th></tr></thead>'
            f"<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n</section>")
