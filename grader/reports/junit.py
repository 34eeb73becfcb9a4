"""JUnit XML through `junit-xml`: a test suite per submission, classname = exercise id, file/line
set to the check's source, failures carrying the check's message. An interrupted run adds a suite
"not graded (interrupted)": one skipped case per submission that was not graded."""

from __future__ import annotations

from junit_xml import TestCase, TestSuite, to_xml_report_string

from grader.reports import safe
from grader.reports.common import partial_line
from grader.results import GradeRun, pack_notes


def render(run: GradeRun) -> str:
    suites = []
    for sub in run.submissions:
        cases = []
        if sub.error:
            case = TestCase("open submission", classname="submission", elapsed_sec=0.0)
            case.add_error_info(message=safe.plain(sub.error))
            cases.append(case)
        for ex in sub.exercises:
            for check in ex.checks:
                case = TestCase(check.name, classname=ex.id, elapsed_sec=check.duration_s, file=check.file,
                                line=check.line)
                message = safe.plain(check.message, newlines=True)
                summary = message.splitlines()[0] if message else check.outcome
                if check.outcome == "failed":
                    case.add_failure_info(message=summary, output=message)
                elif check.outcome == "error":
                    case.add_error_info(message=summary, output=message)
                elif check.outcome == "not_run":
                    case.add_skipped_info(message=message or "not run")
                cases.append(case)
        properties = {"score": sub.score, "max_score": sub.max_score}
        if pack_notes(run):  # exercises from packs: which pack and version, torch warnings
            properties["packs"] = safe.plain("; ".join(pack_notes(run)))
        suites.append(TestSuite(sub.name, cases, properties=properties))
    partial = run.extra.get("partial")
    if partial:
        cases = []
        for item in partial.get("not_graded", []):
            case = TestCase(safe.plain(item.get("name", "")), classname="not graded", elapsed_sec=0.0)
            case.add_skipped_info(message="not graded: the run was interrupted before it")
            cases.append(case)
        suites.append(TestSuite("not graded (interrupted)", cases,
                                properties={"partial": safe.plain(partial_line(run) or "")}))
    return to_xml_report_string(suites, prettyprint=True, encoding="utf-8")
