"""The Markdown summary sized for where it goes: `--markdown-limit pr|step|BYTES` (a pull-request
comment: 64 KiB; a step summary: 1 MiB), cut at a line with an explicit notice."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import cli
from grader.reports import markdown

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value,limit", [("pr", 65536), ("PR", 65536), ("step", 1048576), ("5000", 5000),
                                         (" 1024 ", 1024)])
def test_limit_targets(value, limit):
    assert markdown.parse_limit(value) == limit


@pytest.mark.parametrize("value,message", [("comment", "'comment' is not pr, step or a number of bytes"),
                                           ("-5", "'-5' is not pr, step or a number of bytes"),
                                           ("100", "100 bytes is too small: use at least 1024")])
def test_bad_limits_are_usage_errors(value, message):
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "examples" / "sample_submission"), "--markdown-limit", value])
    assert result.exit_code == 2
    assert f"Invalid value for '--markdown-limit': {message}" in result.output


@pytest.mark.parametrize("size", [65536, 1048576])
def test_fit_keeps_a_long_summary_under_each_target(size):
    line = "- **05_broadcast_bias** `test_x` (value, test_hidden.py:12): é expected 1, got 2 ✗\n"
    text = "## torch-grader: 1 / 2 (50 %)\n\n" + line * (2 * size // len(line.encode()))
    cut = markdown.fit(text, size)
    assert len(cut.encode()) <= size
    assert cut.endswith(f"> **Truncated:** this summary exceeded {size // 1024} KiB; see the JSON or JUnit report "
                        f"for every check.\n")
    body = cut.split("\n\n> **Truncated:**")[0]
    assert body.splitlines()[-1] == line.rstrip("\n")  # cut at a line boundary
    assert markdown.fit(line, size) == line  # a short one is left alone


def test_cli_writes_the_summary_within_the_limit(tmp_path):
    target = tmp_path / "summary.md"
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "examples" / "sample_submission"), "-e", "10,18",
                                      "--runtime", "local", "-q", "--markdown", str(target),
                                      "--markdown-limit", "1024"])
    assert result.exit_code == 0, result.output
    text = target.read_text()
    assert len(text.encode()) <= 1024
    assert text.startswith("## torch-grader: ")
    assert text.endswith("> **Truncated:** this summary exceeded 1 KiB; see the JSON or JUnit report for every "
                         "check.\n")
