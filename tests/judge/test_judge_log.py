"""When the judge records nothing for an exercise (it crashed, or was killed before collecting it),
its log may quote lines of test_hidden.py. The report says where the log was kept, never what it
says (issue 11, point 7): every report format is checked for the quoted lines."""
import json
import os
import stat
from pathlib import Path

from grader.catalog import Catalog
from grader.grading.assemble import build_exercise
from grader.reports import render_report
from grader.results import Environment, GradeRun, SubmissionResult
from grader.runtimes import JudgeOutput
from grader.submissions import CandidateFile

ROOT = Path(__file__).resolve().parents[2]


def _hidden_lines(ex) -> list[str]:
    lines = [line.strip() for line in (ex.dir / "test_hidden.py").read_text().splitlines()]
    return [line for line in lines if len(line) > 30 and not line.startswith("#")][:20]


def test_a_judge_log_quoting_hidden_checks_is_kept_aside_and_no_report_quotes_it(tmp_path):
    ex = Catalog.load(ROOT).get("05")
    quoted = _hidden_lines(ex)
    assert quoted, "05's hidden checks have no line to quote"
    log = "Traceback (most recent call last):\n" + "\n".join(f"    {line}" for line in quoted) + "\nMemoryError\n"
    output = JudgeOutput(records=[], error="the judge crashed (MemoryError)", log=log)
    cand = CandidateFile(exercise=ex.id, path=tmp_path / "broadcast_bias.py")
    cand.path.write_text("def add_feature_bias(x, b):\n    return x + b\n")

    result = build_exercise(ex, "sub", tmp_path, cand, output)

    (row,) = result.checks
    assert row.outcome == "error" and row.score == 0
    assert "the judge crashed (MemoryError)" in row.message
    kept = Path(output.log_file)
    assert str(kept) in row.message, row.message
    assert kept.read_text() == log, "the interviewer's copy of the log is not the log"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert kept.parent.stat().st_uid == os.getuid()

    run = GradeRun(submissions=(SubmissionResult(name="sub", path=str(tmp_path), exercises=(result,)),),
                   environment=Environment(runtime="local"), started_at="2026-01-01T00:00:00+00:00",
                   duration_s=1.0, tool_version="test")
    written = {kind: render_report(kind, run) for kind in ("json", "junit", "gradescope", "markdown", "html")}
    for kind, text in written.items():
        assert "the judge crashed" in text, f"the {kind} report does not say why the exercise scored 0"
        leaked = [line for line in quoted if line in text]
        assert not leaked, f"the {kind} report quotes the judge's log: {leaked[:2]}"
    assert json.loads(written["json"])["exercises"][0]["checks"][0]["outcome"] == "error"
    kept.unlink()
