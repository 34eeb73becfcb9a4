"""`grader grade` without the command line: plan the reports, grade, write every report, and decide
the exit code. The CLI parses its options into a `ReportRequest` and `GradeOptions` and renders what
this returns; a Python caller (a CI script) gets the same behaviour.

    from grader.grade_and_report import ReportRequest, grade_and_report
    code = grade_and_report([Path("sub.zip")], GradeOptions(runtime="docker"),
                            ReportRequest(reports={"json": Path("report.json")}, fail_under=60))

Policy, in order: report paths are checked before grading (a bad one is a usage error); every
report asked for is written, whatever happened (an interruption writes what finished); then the
exit code: 130 interrupted, 1 a report could not be written or --require-gpu found no GPU, 2
nothing could be graded, 3 a submission under --fail-under, else 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.errors import ExitCode, Interrupted, UsageError
from grader.grading import GradeOptions, grade_with
from grader.outputs import ReportTarget, plan_reports, write_reports
from grader.reports.safe import inert
from grader.results import GradeRun

DEFAULT_NAMES = {"json": "report.json", "junit": "junit.xml", "gradescope": "results.json",
                 "markdown": "summary.md", "html": "report.html", "csv": "gradebook.csv"}


@dataclass
class ReportRequest:
    """What to write and how to judge the run, besides grading itself."""

    reports: dict[str, Path | str | None] = field(default_factory=dict)  # kind -> path ("-": standard output)
    report_options: dict[str, dict] = field(default_factory=dict)  # kind -> the renderer's options
    audience: str = "interviewer"  # candidate: hidden checks only in aggregate
    full_reports: Path | None = None  # also the interviewer's form of every report, into this folder
    feedback_dir: Path | None = None  # one report per candidate, to send them
    fail_under: float | None = None  # percent: exit 3 when a submission scores under it
    require_gpu: bool = False


def plan(paths: list[Path], request: ReportRequest) -> list[ReportTarget]:
    """Check every report path before minutes of grading; raise UsageError saying what to fix."""
    targets = plan_reports(request.reports, list(paths), request.report_options)
    if request.full_reports is not None and not targets:
        raise UsageError(f"--full-reports {request.full_reports} writes the interviewer's form of the reports asked "
                         f"for, and none is: add one (--json, --junit, --html, --markdown, --gradescope, --csv), "
                         f"e.g. --audience candidate --junit pr/junit.xml --full-reports {request.full_reports}")
    if request.feedback_dir is not None:
        from grader.gradebook import plan_feedback

        plan_feedback(request.feedback_dir, list(paths))
    return targets


def grade_and_report(paths: list[Path], options: GradeOptions, request: ReportRequest, *,
                     say: Callable[[str], None], stdout: Callable[[str], None] | None = None,
                     table: Callable[[GradeRun, bool], None] | None = None) -> int:
    """Grade `paths`, write the reports of `request`, and return the exit code (see the module).
    `say(line)` gets every line for the user's standard error; `stdout(text)` a report written to
    `-`; `table(run, to_stderr)` prints the score table (None: no table)."""
    targets = plan(paths, request)
    told = options.on_note

    def note(text: str) -> None:  # the runtime's warnings, before grading starts (the code has not run yet)
        say(f"Warning: {inert(text)}")
        if told is not None:
            told(text)

    interrupted = None
    try:
        run = grade_with(list(paths), replace(options, on_note=note))
    except Interrupted as exc:  # reports of what finished, then exit 130
        if exc.run is None:
            raise
        run, interrupted = exc.run, exc
    from grader.reports.audience import for_audience

    shown = for_audience(run, request.audience)
    failures = write_reports(shown, targets, stdout=stdout)
    if request.full_reports is not None:
        full = [ReportTarget(t.kind, request.full_reports / (t.path.name if t.path else DEFAULT_NAMES[t.kind]),
                             t.options) for t in targets]
        failures += write_reports(run, full)
    if request.feedback_dir is not None:  # one report per candidate, in the candidate's form
        from grader.gradebook import write_feedback

        written, not_written = write_feedback(run, request.feedback_dir)
        failures += not_written
        if written:
            say(f"Feedback for {len(written) // 2} submission(s) written to {inert(request.feedback_dir)} "
                f"(HTML and Markdown each, hidden checks in aggregate)")
    nothing_graded = bool(run.submissions) and all(sub.error for sub in run.submissions)
    if table is not None and not nothing_graded:
        try:  # with a report on standard output, the table goes to standard error
            table(shown, any(t.path is None for t in targets))
        except Exception as exc:  # noqa: BLE001 - the reports are written: the table costs only itself
            failures.append(f"could not print the score table: {type(exc).__name__}: {exc}")
    for failure in failures:
        say(f"Error: {inert(failure)} (the other reports were written)")
    for sub in run.submissions:
        if sub.error:
            say(f"Error: {inert(sub.error)}" if len(run.submissions) == 1 else
                f"Error: {inert(sub.name)}: not graded: {inert(sub.error)}")
    if request.require_gpu and not run.environment.gpus:
        say("Error: --require-gpu: no GPU was available to grade on")
        return int(ExitCode.ERROR)
    if interrupted is not None:
        say(f"Error: {inert(interrupted, True)}")
        return int(ExitCode.INTERRUPTED)
    if failures:
        return int(ExitCode.ERROR)
    if nothing_graded:
        return int(ExitCode.USAGE)  # nothing could be graded: the submission paths are wrong
    return _under_threshold(run, request.fail_under, say)


def _under_threshold(run: GradeRun, fail_under: float | None, say: Callable[[str], None]) -> int:
    under = [sub for sub in run.submissions if sub.percent < fail_under] if fail_under is not None else []
    if under and len(run.submissions) == 1:
        say(f"Score {under[0].percent:g} % is under --fail-under {fail_under:g} %")
    elif under:
        names = ", ".join(f"{inert(sub.name)} ({sub.percent:g} %)" for sub in under)
        say(f"{len(under)} of {len(run.submissions)} submissions under --fail-under {fail_under:g} %: {names}")
    return int(ExitCode.UNDER_THRESHOLD) if under else int(ExitCode.OK)
