"""Markdown summary for pull-request comments and `$GITHUB_STEP_SUMMARY`, within a size budget."""

from __future__ import annotations

from grader.results import GradeRun, fmt_points

STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub's cap for a step summary
PR_COMMENT_LIMIT = 65536  # GitHub's cap for a comment
TARGETS = {"pr": PR_COMMENT_LIMIT, "step": STEP_SUMMARY_LIMIT}
MIN_LIMIT = 1024  # room for the headline and the truncation notice


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
    return text.replace("|", "\\|").replace("\n", " ")


def render(run: GradeRun, limit: int = STEP_SUMMARY_LIMIT) -> str:
    head = [f"## torch-grader: {fmt_points(run.score)} / {fmt_points(run.max_score)} ({run.percent:g} %)", "",
            f"Runtime: {run.environment.runtime} · torch {run.environment.torch or '?'} · "
            f"{run.environment.gpu_summary}", ""]
    body: list[str] = []
    for sub in run.submissions:
        if len(run.submissions) > 1:
            body += [f"### {sub.name}: {fmt_points(sub.score)} / {fmt_points(sub.max_score)} ({sub.percent:g} %)", ""]
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
            body += ["<details><summary>Failing checks</summary>", ""]
            for ex, c in failing:
                first = c.message.splitlines()[0] if c.message else c.outcome
                body.append(f"- **{ex.id}** `{c.name}` ({c.kind}, {c.file}:{c.line}): {_cell(first)[:300]}")
            body += ["", "</details>", ""]
        flagged = [(ex, f) for ex in sub.exercises for f in ex.flags]
        if flagged:
            body += ["**Flags for the interviewer:**", ""]
            body += [f"- {ex.id} {f.where}: {_cell(f.message)}" for ex, f in flagged]
            body.append("")
    not_run = sum(ex.not_run for sub in run.submissions for ex in sub.exercises)
    if not_run:
        body += [f"_{not_run} check(s) could not run here (for example CUDA checks without a GPU) and are left "
                 f"out of the possible total._", ""]
    return fit("\n".join(head + body), limit)


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
