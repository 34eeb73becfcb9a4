"""Golden reports: the sample submission graded once, every report compared with tests/golden/
after normalising times and paths. Regenerate with UPDATE_GOLDEN=1 when a change is intended."""
from __future__ import annotations

import dataclasses
import io
import json
import os
import re
from pathlib import Path

import pytest
from rich.console import Console

from grader.grading import grade
from grader.reports import gradescope, json_report, junit, markdown, terminal
from grader.results import GradeRun

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SAMPLE = ROOT / "examples" / "sample_submission"


def normalise_run(run: GradeRun) -> GradeRun:
    """Fixed times and paths, so that the reports are comparable byte for byte."""
    subs = []
    for sub in run.submissions:
        exercises = tuple(dataclasses.replace(ex, checks=tuple(dataclasses.replace(c, duration_s=0.0)
                                                                for c in ex.checks))
                          for ex in sub.exercises)
        subs.append(dataclasses.replace(sub, path="<submission>", exercises=exercises))
    env = dataclasses.replace(run.environment, python="3.x", notes=(), exercise_root="<root>")
    return dataclasses.replace(run, submissions=tuple(subs), environment=env, started_at="2026-01-01T00:00:00+00:00",
                               duration_s=1.0)


@pytest.fixture(scope="module")
def sample_run() -> GradeRun:
    return normalise_run(grade([SAMPLE], runtime="local", exercises=["05", "10", "18"]))


def render_terminal(run: GradeRun) -> str:
    buf = io.StringIO()
    terminal.render(run, Console(file=buf, width=120, color_system=None, force_terminal=False))
    return buf.getvalue()


RENDERERS = {
    "report.json": json_report.render,
    "junit.xml": junit.render,
    "results.json": gradescope.render,
    "summary.md": markdown.render,
    "terminal.txt": render_terminal,
}


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_report_matches_golden(sample_run, name):
    text = RENDERERS[name](sample_run)
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from {path} (UPDATE_GOLDEN=1 to accept)"


def test_json_report_schema(sample_run):
    report = json.loads(json_report.render(sample_run))
    assert report["schema_version"] == 2
    assert {"score", "max_score", "percent", "exercises", "submissions", "environment"} <= set(report)
    for ex in report["exercises"]:
        assert {"id", "score", "max_score", "checks", "by_kind"} <= set(ex)
        for check in ex["checks"]:
            assert {"name", "kind", "outcome", "message", "file", "line"} <= set(check)
            assert check["outcome"] in {"passed", "failed", "error", "not_run"}
    assert report["score"] == pytest.approx(sum(e["score"] for e in report["exercises"]), abs=1e-3)


def test_json_report_has_no_total_across_candidates(sample_run):
    """Schema 2: the top-level score, max_score and percent are those of the one submission graded;
    with several there is none (a sum over candidates means nothing: `jq .percent` gave 81.87 %)."""
    other = dataclasses.replace(sample_run.submissions[0], name="other")
    report = json.loads(json_report.render(dataclasses.replace(sample_run, submissions=(*sample_run.submissions, other))))
    assert report["schema_version"] == 2
    assert not {"score", "max_score", "percent"} & set(report)
    assert [s["percent"] for s in report["submissions"]] == [sample_run.submissions[0].percent] * 2


def test_junit_has_classname_file_and_line(sample_run):
    xml = junit.render(sample_run)
    case = re.search(r'<testcase name="test_feature_bias_shape"[^>]*>', xml).group(0)
    assert 'classname="05_broadcast_bias"' in case
    assert 'file="exercises/tensors/05_broadcast_bias/test_hidden.py"' in case
    assert re.search(r'line="\d+"', case)


def test_markdown_is_truncated_with_a_notice(sample_run):
    text = markdown.render(sample_run, limit=600)
    assert len(text.encode()) <= 600
    assert "**Truncated:**" in text


def test_check_view_never_wraps_an_exercise_header_or_a_check_line(sample_run):
    """`grader check` piped (120 columns) split "66_activation_checkpointing (devices_performance/
    66_activation_checkpointing/activation_checkpointing.py): 0/3 checks passed" over two lines:
    the path was no longer clickable, and tools reading the output saw a header too many."""
    from grader.reports.check_view import render_checks

    sub = sample_run.submissions[0]
    long_file = "devices_performance/66_activation_checkpointing/" + "very_long_name_" * 8 + ".py"
    exercises = tuple(dataclasses.replace(ex, file=long_file) for ex in sub.exercises)
    run = dataclasses.replace(sample_run, submissions=(dataclasses.replace(sub, exercises=exercises),))
    buf = io.StringIO()
    render_checks(run, Console(file=buf, width=80, color_system=None, force_terminal=False))
    lines = buf.getvalue().splitlines()
    headers = [line for line in lines[:-1] if not line.startswith(" ")]
    assert headers == [f"{ex.id} ({long_file}): {sum(c.outcome == 'passed' for c in ex.checks)}/"
                       f"{sum(c.outcome != 'not_run' for c in ex.checks)} checks passed" for ex in exercises]
    marks = [line for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert len(marks) == sum(len(ex.checks) for ex in exercises)
