"""Scores per check variant, and the terminal table as people read it (issue 12): 80 columns,
the reasons under the table, no total across different candidates."""
from __future__ import annotations

import io

from rich.console import Console

from grader.catalog import CHECK_KINDS
from grader.reports import terminal
from grader.results import Environment, ExerciseResult, GradeRun, SubmissionResult, score_checks


def row(name, outcome="passed", kind="value", weight=1.0, message=""):
    return {"name": name, "kind": kind, "weight": weight, "visibility": "hidden", "outcome": outcome,
            "message": message, "duration_s": 0.0, "file": "exercises/x/test_hidden.py", "line": 3}


def test_a_checks_weight_is_split_over_its_variants():
    rows = [row("test_a"), *(row(f"test_b[cpu-{rank}]") for rank in range(1, 6)),
            row("test_b[cuda-1]", outcome="not_run")]
    checks = score_checks(10, rows)
    assert round(checks[0].max_score, 4) == 5.0  # test_a weighs what test_b weighs, all variants together
    assert round(sum(c.max_score for c in checks[1:]), 4) == 5.0
    assert checks[-1].max_score == 0.0


def exercise(ex_id, checks, problem=None):
    return ExerciseResult(id=ex_id, title="t", track="tensors", difficulty="easy", points=10, file=f"{ex_id}.py",
                          checks=tuple(score_checks(10, checks)), problem=problem)


def render(run, width, verbose=False):
    buf = io.StringIO()
    terminal.render(run, Console(file=buf, width=width, color_system=None), verbose=verbose)
    return buf.getvalue()


def make_run():
    every_kind = [row(f"test_{kind}", kind=kind, outcome="failed" if kind == "value" else "passed",
                      message="result differs from the expected values\nexpected: tensor([1., 2.])")
                  for kind in CHECK_KINDS]
    syntax = [row(f"test_{i}", outcome="failed", message="custom_mlp_module.py has a syntax error at line 7: "
                                                          "invalid syntax") for i in range(4)]
    alice = SubmissionResult("alice", "/a", (exercise("17_custom_autograd_function", every_kind),
                                             exercise("18_custom_mlp_module", syntax)))
    bob = SubmissionResult("bob", "/b", (exercise("05_broadcast_bias", [row("test_x", outcome="failed",
                                                                            message="boom")],
                                                  problem="no broadcast_bias.py in the submission"),))
    return GradeRun((alice, bob), Environment("local"), "2026-01-01T00:00:00+00:00", 1.0, "0")


def test_table_fits_80_columns_without_cutting_names_or_scores():
    text = render(make_run(), 80)
    assert all(len(line.rstrip()) <= 80 for line in text.splitlines()), text
    assert "…" not in text
    assert "17_custom_autograd_function" in text and "18_custom_mlp_module" in text
    assert "8.89/10" in text  # 8 of 9 equally weighted checks passed


def test_wide_terminal_keeps_a_column_per_kind():
    header = next(line for line in render(make_run(), 160).splitlines() if "exercise" in line)
    assert all(kind in header for kind in CHECK_KINDS)


def test_reasons_are_shown_under_the_table():
    text = render(make_run(), 120)
    assert "17_custom_autograd_function test_value: result differs from the expected values" in text
    assert "expected: tensor" not in text  # one line each; -v shows the whole message
    assert text.count("syntax error at line 7") == 1  # one cause for every check: said once
    assert "18_custom_mlp_module: every check failed: custom_mlp_module.py has a syntax error at line 7" in text
    assert "05_broadcast_bias: no broadcast_bias.py in the submission" in text
    assert "expected: tensor([1., 2.])" in render(make_run(), 120, verbose=True)


def test_no_total_across_candidates():
    text = render(make_run(), 120)
    assert "Total" not in text
    assert "alice: 8.89 / 20 (44.44 %)" in text and "bob: 0 / 10 (0 %)" in text


def test_markdown_keeps_whole_messages_in_collapsible_blocks():
    from grader.reports import markdown

    text = markdown.render(make_run())
    assert "<details><summary>17_custom_autograd_function test_value (value, exercises/x/test_hidden.py:3): " \
           "result differs from the expected values</summary>" in text
    assert "expected: tensor(&#91;1., 2.&#93;)" in text  # the useful part after the first line (inert)


def test_markdown_message_cannot_close_its_code_block():
    from grader.reports import markdown

    run = make_run()
    nasty = [row("test_fence", outcome="failed", message="x\n```\n</pre></details>\n# injected heading")]
    sub = SubmissionResult("eve", "/e", (exercise("05_broadcast_bias", nasty),))
    text = markdown.render(GradeRun((sub,), run.environment, run.started_at, 1.0, "0"))
    block = text[text.index("<details>"):]
    # the whole message stays inside its <pre> block, every line of it, as inert text
    assert ("<pre>x\n&#96;&#96;&#96;\n&#60;/pre&#62;&#60;/details&#62;\n&#35; injected heading</pre>"
            in block), block
    assert block.count("</pre>") == 1 and block.count("</details>") == 1


def test_markdown_over_its_limit_falls_back_to_first_lines():
    from grader.reports import markdown

    long = [row(f"test_{i}", outcome="failed", message="first line\n" + "detail " * 400) for i in range(20)]
    sub = SubmissionResult("zed", "/z", (exercise("05_broadcast_bias", long),))
    run = make_run()
    text = markdown.render(GradeRun((sub,), run.environment, run.started_at, 1.0, "0"), limit=8192)
    assert len(text.encode()) <= 8192
    assert "<details>" not in text and "**Truncated:**" not in text
    assert text.count(": first line") == 20


def test_record_tail_hands_over_records_as_they_are_written(tmp_path):
    from grader.runtimes.base import RecordTail

    path = tmp_path / "results.jsonl"
    tail = RecordTail(path)
    assert tail.poll() == []
    path.write_text('{"type": "collected", "exercise": "05"}\n{"type": "check", "exer')
    assert tail.poll() == [{"type": "collected", "exercise": "05"}]  # the torn line waits
    with open(path, "a") as fh:
        fh.write('cise": "05"}\n')
    assert tail.poll() == [{"type": "check", "exercise": "05"}]


def test_validate_progress_counts_each_exercises_checks():
    from grader.validate import _counter

    calls = []
    on_record = _counter(lambda *args: calls.append(args))
    for record in [{"type": "collected", "exercise": "05"}, {"type": "collected", "exercise": "05"},
                   {"type": "collected", "exercise": "10"}, {"type": "check", "exercise": "05"},
                   {"type": "check", "exercise": "05"}, {"type": "note", "message": "x"},
                   {"type": "check", "exercise": "10"}]:
        on_record(record)
    assert calls == [("05", 1, 2), ("05", 2, 2), ("10", 1, 1)]
