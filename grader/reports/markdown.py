"""Markdown summary for pull-request comments and `$GITHUB_STEP_SUMMARY`, within a size budget."""

from __future__ import annotations

import html

from grader.reports import safe
from grader.reports.common import is_tampering, partial_line, said_by_problem
from grader.results import CheckResult, ExerciseResult, GradeRun, fmt_points, pack_notes

STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub's cap for a step summary
PR_COMMENT_LIMIT = 65536  # GitHub's cap for a comment
TARGETS = {"pr": PR_COMMENT_LIMIT, "step": STEP_SUMMARY_LIMIT}
MIN_LIMIT = 1024  # room for the headline and the truncation notice
MAX_DETAIL = 4000  # characters of one failing check's message in its collapsible block


def parse_limit(value: str | int) -> int:
    """A size cap in bytes from a target name (`pr`: a pull-request comment, `step`: a step
    summary) or a number of bytes (at least MIN_LIMIT). Raises ValueError saying what is accepted."""
    text = str(value).strip().lower()
    if text in TARGETS:
        return TARGETS[text]
    if not text.isdigit():
        raise ValueError(f"{value!r} is not pr, step or a number of bytes")
    if int(text) < MIN_LIMIT:
        raise ValueError(f"{value} bytes is too small: use at least {MIN_LIMIT}")
    return int(text)


def _cell(text: str) -> str:
    """Candidate-controlled text for one line or table cell: shown as text, nothing more."""
    return safe.markdown(text)


def _terminal_cell(text: str) -> str:
    """`--markdown -` read in a terminal: the text itself (controls escaped), no HTML entity."""
    return safe.inert(str(text).replace("\r", " ").replace("\n", " "))


def render(run: GradeRun, limit: int = STEP_SUMMARY_LIMIT, terminal: bool = False) -> str:
    """The summary, with each failing check's whole message in a collapsible block; when that is
    over `limit`, the messages' first lines only; past that, cut with a notice (`fit`). With
    `terminal` (`--markdown -` on a terminal, read by a person, not by GitHub): the messages'
    first lines, candidate text shown as it is (controls escaped), no HTML."""
    if terminal:
        return fit(_render(run, details=False, cell=_terminal_cell), limit)
    text = _render(run, details=True)
    if len(text.encode("utf-8")) > limit:
        text = _render(run, details=False)
    return fit(text, limit)


def _preformatted(text: str) -> list[str]:
    """`text` as an HTML `<pre>` block (CommonMark ends it only at `</pre>`, so blank lines are
    kept), every markup character an entity: GitHub shows exactly the text, nothing can close it."""
    return [f"<pre>{safe.markdown_block(text)}</pre>"]


def _failing(ex: ExerciseResult, c: CheckResult, details: bool, cell=_cell) -> list[str]:
    first = c.message.strip().splitlines()[0] if c.message.strip() else c.outcome
    where = f", {c.file}:{c.line}" if c.file else ""  # a candidate's form: hidden checks have none
    head = f"{ex.id} {c.name} ({c.kind}{where}): "
    if not details:
        return [f"- **{ex.id}** `{c.name}` ({c.kind}{where}): {cell(first[:300])}"]
    message = c.message.strip()[:MAX_DETAIL] or c.outcome
    # the head is the grader's own text (ids, check names, locations); the message is the candidate's
    return [f"<details><summary>{html.escape(head)}{_cell(first[:300])}</summary>", "", *_preformatted(message), "",
            "</details>"]


def _render(run: GradeRun, details: bool, cell=_cell) -> str:
    several = run.asked > 1  # each scored on its own: no total across different candidates
    partial = partial_line(run)
    headline = (f"{len(run.submissions)} of {run.asked} submissions graded (interrupted)" if partial else
                f"{len(run.submissions)} submissions" if several else
                f"{fmt_points(run.score)} / {fmt_points(run.max_score)} ({run.percent:g} %)")
    env = run.environment
    torch = f" · torch {env.torch}" if env.torch else ""  # unknown when nothing was graded
    head = [f"## torch-grader: {headline}", "", f"Runtime: {env.runtime}{torch} · {env.gpu_summary}", ""]
    if partial:
        head += [f"> **{cell(partial[0].upper() + partial[1:])}**", ""]
    head += [f"- {cell(line)}" for line in pack_notes(run)] + ([""] if pack_notes(run) else [])
    body: list[str] = []
    for sub in run.submissions:
        if several:
            body += [f"### {cell(sub.name)}: {fmt_points(sub.score)} / {fmt_points(sub.max_score)} ({sub.percent:g} %)", ""]
        if sub.error:
            body += [f"**Not graded:** {cell(sub.error)}", ""]
            continue
        body += ["| exercise | score | checks passed | by kind |", "|---|---:|---:|---|"]
        for ex in sub.exercises:
            passed = sum(c.outcome == "passed" for c in ex.checks)
            counted = sum(c.outcome != "not_run" for c in ex.checks)
            kinds = ", ".join(f"{k} {v['passed']}/{v['total']}" for k, v in ex.by_kind().items())
            body.append(f"| {ex.id} | {fmt_points(ex.score)} / {fmt_points(ex.max_score)} | {passed}/{counted} | {kinds} |")
        body.append("")
        problems = [f"- **{ex.id}:** {cell(ex.problem.strip().splitlines()[0])}" for ex in sub.exercises
                    if ex.problem and ex.problem.strip()]
        if problems:
            body += problems + [""]
        failing = [(ex, c) for ex in sub.exercises for c in ex.checks if c.outcome in ("failed", "error")
                   and not said_by_problem(ex, c)]
        if failing:
            body += [f"**Failing checks ({len(failing)}):**", ""]
            for ex, c in failing:
                body += _failing(ex, c, details, cell)
            body.append("")
        flagged = [(ex, f) for ex in sub.exercises for f in ex.flags]
        tampering = [(ex, f) for ex, f in flagged if is_tampering(f.message)]
        notes = [(ex, f) for ex, f in flagged if not is_tampering(f.message)]
        for title, shown in (("Tampering detected", tampering), (_notes_title(run), notes)):
            if shown:
                body += [f"**{title}:**", ""]
                body += [f"- {ex.id} {f.where}: {cell(f.message)}" for ex, f in shown]
                body.append("")
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    if not_run:
        body += [f"_{not_run} check(s) could not run here (for example CUDA checks without a GPU) and are left "
                 f"out of the possible total._", ""]
    return "\n".join(head + body)


def _notes_title(run: GradeRun) -> str:
    """What static flags and notebook notes (`%matplotlib inline` dropped...) are: notes, not an
    accusation; for the interviewer, or the candidate's own in their form of the report."""
    return "Notes on your code" if run.extra.get("audience") == "candidate" else "Notes for the interviewer"


def fit(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` bytes (UTF-8) at a line boundary, with a visible notice."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    notice = "\n\n> **Truncated:** this summary exceeded {} KiB; see the JSON or JUnit report for every check.\n"
    notice = notice.format(limit // 1024)
    budget = limit - len(notice.encode("utf-8"))
    cut = data[:budget].decode("utf-8", errors="ignore")
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    return cut + notice
