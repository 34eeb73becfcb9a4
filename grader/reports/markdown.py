"""Markdown summary for pull-request comments and `$GITHUB_STEP_SUMMARY`, within a size budget."""

from __future__ import annotations

import html

from grader.packs import report_lines
from grader.reports import safe
from grader.results import CheckResult, ExerciseResult, GradeRun, fmt_points

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


def render(run: GradeRun, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """The summary, with each failing check's whole message in a collapsible block; when that is
    over `limit`, the messages' first lines only; past that, cut with a notice (`fit`)."""
    text = _render(run, details=True)
    if len(text.encode("utf-8")) > limit:
        text = _render(run, details=False)
    return fit(text, limit)


def _preformatted(text: str) -> list[str]:
    """`text` as an HTML `<pre>` block (CommonMark ends it only at `</pre>`, so blank lines are
    kept), every markup character an entity: GitHub shows exactly the text, nothing can close it."""
    return [f"<pre>{safe.markdown_block(text)}</pre>"]


def _failing(ex: ExerciseResult, c: CheckResult, details: bool) -> list[str]:
    first = c.message.strip().splitlines()[0] if c.message.strip() else c.outcome
    head = f"{ex.id} {c.name} ({c.kind}, {c.file}:{c.line}): "
    if not details:
        return [f"- **{ex.id}** `{c.name}` ({c.kind}, {c.file}:{c.line}): {_cell(first[:300])}"]
    message = c.message.strip()[:MAX_DETAIL] or c.outcome
    # the head is the grader's own text (ids, check names, locations); the message is the candidate's
    return [f"<details><summary>{html.escape(head)}{_cell(first[:300])}</summary>", "", *_preformatted(message), "",
            "</details>"]


def _render(run: GradeRun, details: bool) -> str:
    several = len(run.submissions) > 1  # each scored on its own: no total across different candidates
    headline = (f"{len(run.submissions)} submissions" if several else
                f"{fmt_points(run.score)} / {fmt_points(run.max_score)} ({run.percent:g} %)")
    head = [f"## torch-grader: {headline}", "",
            f"Runtime: {run.environment.runtime} · torch {run.environment.torch or '?'} · "
            f"{run.environment.gpu_summary}", ""]
    head += [f"- {_cell(line)}" for line in report_lines(run)] + ([""] if report_lines(run) else [])
    body: list[str] = []
    for sub in run.submissions:
        if len(run.submissions) > 1:
            body += [f"### {_cell(sub.name)}: {fmt_points(sub.score)} / {fmt_points(sub.max_score)} ({sub.percent:g} %)", ""]
        if sub.error:
            body += [f"**Not graded:** {_cell(sub.error)}", ""]
            continue
        body += ["| exercise | score | checks passed | by kind |", "|---|---:|---:|---|"]
        for ex in sub.exercises:
            passed = sum(c.outcome == "passed" for c in ex.checks)
            counted = sum(c.outcome != "not_run" for c in ex.checks)
            kinds = ", ".join(f"{k} {v['passed']}/{v['total']}" for k, v in ex.by_kind().items())
            body.append(f"| {ex.id} | {fmt_points(ex.score)} / {fmt_points(ex.max_score)} | {passed}/{counted} | {kinds} |")
        body.append("")
        failing = [(ex, c) for ex in sub.exercises for c in ex.checks if c.outcome in ("failed", "error")]
        if failing:
            body += [f"**Failing checks ({len(failing)}):**", ""]
            for ex, c in failing:
                body += _failing(ex, c, details)
            body.append("")
        flagged = [(ex, f) for ex in sub.exercises for f in ex.flags]
        if flagged:
            body += ["**Flags for the interviewer:**", ""]
            body += [f"- {ex.id} {f.where}: {_cell(f.message)}" for ex, f in flagged]
            body.append("")
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    if not_run:
        body += [f"_{not_run} check(s) could not run here (for example CUDA checks without a GPU) and are left "
                 f"out of the possible total._", ""]
    return "\n".join(head + body)


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
