"""A new user's bad input and lost work (issue 12): every case ends in a clear message and the
documented exit code, never a traceback, and no report overwrites a submission."""
from __future__ import annotations

import contextlib
import json
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import cli

ROOT = Path(__file__).resolve().parents[2]
PILOTS = ["tensors/05_broadcast_bias", "autograd/10_autograd_basics"]
SOLUTION = ROOT / "solutions" / PILOTS[0] / "broadcast_bias.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("root")
    for rel in PILOTS:
        shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
        shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    return root


def run(root: Path, *args: str, columns: int = 120, cwd: Path | None = None):
    # from inside the root (or `cwd`): the enclosing exercise tree comes before $GRADER_ROOT (grader.roots)
    with contextlib.chdir(cwd or root):
        return CliRunner().invoke(cli, list(args), env={"GRADER_ROOT": str(root), "COLUMNS": str(columns)},
                                  prog_name="grader")


def no_traceback(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


# --- exercise selection ----------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["grade", "x.py", "-e", ""], ["grade", "x.py", "-e", ",,,"], ["check", ","],
                                  ["check", " "]])
def test_empty_exercise_names_are_usage_errors(root, tmp_path, args):
    result = run(root, *[str(tmp_path / a) if a == "x.py" else a for a in args])
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert "no exercise named in" in result.output


def test_a_track_name_selects_the_whole_track(root):
    from grader.catalog import Catalog

    catalog = Catalog.load(root)
    assert [ex.id for ex in catalog.select(["autograd"])] == ["10_autograd_basics"]
    assert [ex.id for ex in catalog.select(["tensors,autograd"])] == ["05_broadcast_bias", "10_autograd_basics"]
    full = Catalog.load(ROOT)
    assert len(full.select(["autograd"])) == len([ex for ex in full.exercises if ex.track == "autograd"]) > 1


def test_no_arguments_prints_help_and_exits_0(root):
    result = run(root)
    assert result.exit_code == 0
    assert result.output.startswith("Usage: grader [OPTIONS] [COMMAND] [ARGS]...")


# --- report paths ----------------------------------------------------------------------------------

def test_unwritable_report_path_is_refused_before_grading(root, tmp_path):
    ok = tmp_path / "ok.html"
    result = run(root, "grade", str(SOLUTION), "-e", "05", "--runtime", "local", "--json", "/proc/x.json",
                 "--html", str(ok))
    no_traceback(result)
    assert result.exit_code == 2
    assert "--json /proc/x.json: cannot write there" in result.output
    assert "Graded on" not in result.output and not ok.exists()


@pytest.mark.parametrize("kind", ["--json", "--markdown"])
def test_report_path_equal_to_the_submission_is_refused(root, tmp_path, kind):
    sub = tmp_path / "broadcast_bias.py"
    shutil.copy(SOLUTION, sub)
    before = sub.read_bytes()
    result = run(root, "grade", str(sub), "-e", "05", "--runtime", "local", kind, str(sub))
    assert result.exit_code == 2
    assert "is the submission itself" in result.output
    assert sub.read_bytes() == before


def test_report_path_over_a_file_of_the_submission_is_refused(root, tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    shutil.copy(SOLUTION, folder)
    result = run(root, "grade", str(folder), "--runtime", "local", "--json", str(folder / "broadcast_bias.py"))
    assert result.exit_code == 2
    assert "is a file of the submission" in result.output


def test_dash_writes_the_report_to_stdout_and_the_table_to_stderr(root, tmp_path):
    result = CliRunner().invoke(cli, ["grade", str(SOLUTION), "-e", "05", "--runtime", "local", "--json", "-"],
                                env={"GRADER_ROOT": str(root)}, prog_name="grader")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["score"] == report["max_score"] == 10
    assert "05_broadcast_bias" in result.stderr and not Path("-").exists()


def test_two_reports_to_stdout_are_refused(root):
    result = run(root, "grade", str(SOLUTION), "--json", "-", "--junit", "-")
    assert result.exit_code == 2
    assert "send at most one there" in result.output


def test_a_report_that_fails_at_the_end_leaves_the_others_written(root, tmp_path):
    from grader.grading import grade
    from grader.outputs import plan_reports, write_reports

    blocked = tmp_path / "later" / "r.json"
    targets = plan_reports({"json": blocked, "markdown": tmp_path / "r.md"}, [SOLUTION])
    blocked.parent.rmdir()
    blocked.parent.write_text("now a file, not a folder")  # what can change during minutes of grading
    run_ = grade([SOLUTION], runtime="local", exercises=["05"], root=root, visibility="public")
    failures = write_reports(run_, targets)
    assert len(failures) == 1 and failures[0].startswith(f"could not write --json {blocked}")
    assert (tmp_path / "r.md").read_text().startswith("## torch-grader")


# --- submissions that cannot be graded ----------------------------------------------------------------

def test_unreadable_submission_still_gets_reports_with_score_0(root, tmp_path):
    bad = tmp_path / "sub.zip"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    result = run(root, "grade", str(bad), "-e", "05,10", "--runtime", "local", "--json", str(out),
                 "--markdown", str(md))
    assert result.exit_code == 2
    assert "not a readable zip archive" in result.output
    report = json.loads(out.read_text())
    assert report["submissions"][0]["error"].startswith(f"{bad}: not a readable zip archive")
    assert (report["score"], report["max_score"]) == (0, 20)
    assert "not a readable zip archive" in md.read_text()


def test_fail_under_is_per_submission_and_names_who(root, tmp_path):
    good = tmp_path / "alice"
    good.mkdir()
    shutil.copy(SOLUTION, good)
    result = run(root, "grade", str(good), str(root / "exercises"), "-e", "05", "--runtime", "local",
                 "--fail-under", "60")
    assert result.exit_code == 3, result.output
    assert "1 of 2 submissions under --fail-under 60 %: exercises (0 %)" in result.output
    assert "Total:" not in result.output  # no sum across different candidates


# --- corrupt archives, bundles, renamed stubs, limits ------------------------------------------------

def test_corrupt_deflate_data_is_a_clear_error(root, tmp_path):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("broadcast_bias.py", "x = 1\n" * 200)
    data = bytearray(buf.getvalue())
    start = 30 + len("broadcast_bias.py")
    data[start:start + 10] = bytes(b ^ 0xFF for b in data[start:start + 10])
    bad = tmp_path / "sub.zip"
    bad.write_bytes(bytes(data))
    result = run(root, "grade", str(bad), "-e", "05", "--runtime", "local", "-q")
    no_traceback(result)
    assert result.exit_code == 2
    assert "corrupt member 'broadcast_bias.py'" in result.output


def test_corrupt_tar_gz_is_one_line(root, tmp_path):
    bad = tmp_path / "sub.tar.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 20)
    result = run(root, "grade", str(bad), "-e", "05", "--runtime", "local", "-q")
    assert result.exit_code == 2
    (line,) = [ln for ln in result.output.splitlines() if "not a readable tar archive" in ln]
    assert "method bz2" not in result.output and line.endswith("and try again")


def test_image_build_in_a_candidate_bundle_says_what_to_do(tmp_path):
    (tmp_path / "exercises").mkdir()
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(cli, ["image", "build"], env={"GRADER_ROOT": str(tmp_path)}, prog_name="grader")
    no_traceback(result)
    assert result.exit_code == 2
    assert "not from a candidate bundle" in result.output


def test_renamed_stub_names_the_expected_file(root, tmp_path):
    copy = tmp_path / "root"
    shutil.copytree(root, copy)
    folder = copy / "exercises" / PILOTS[0]
    (folder / "broadcast_bias.py").rename(folder / "my_solution.py")
    result = run(copy, "check", "05")
    assert result.exit_code == 2
    assert "missing broadcast_bias.py (found my_solution.py)" in result.output
    assert "rename your file back to broadcast_bias.py" in result.output


def test_memory_limit_too_small_for_torch_is_refused(root):
    result = run(root, "grade", str(SOLUTION), "--memory-gb", "0.1")
    assert result.exit_code == 2
    assert "cannot even import torch" in result.output
    assert "cannot even import torch" in run(root, "check", "05", "--memory-gb", "0.2").output


# --- grader check: messages and pytest habits ----------------------------------------------------------

WRONG = textwrap.dedent("""\
    def add_feature_bias(x, bias):
        print("debug: x shape", tuple(x.shape))
        return x + bias + 1
    def add_sample_bias(x, bias):
        raise ValueError("oops")
    def pairwise_sq_dists(a, b):
        return ((a[:, None] - b[None]) ** 2).sum(-1)
    """)


def test_check_explains_a_failure_like_pytest(root, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("broadcast_bias.py").write_text(WRONG)
    result = run(root, "check", "broadcast_bias.py", cwd=tmp_path)
    assert result.exit_code == 3, result.output
    out = result.output
    assert "expected: tensor([[1., 2., 3.], [1., 2., 3.]])" in out  # what was expected...
    assert "got:      tensor([[2., 3., 4.], [2., 3., 4.]])" in out  # ...and what the code did
    assert "inputs:   broadcast_bias.add_feature_bias(tensor([[0., 0., 0.], [0., 0., 0.]]), tensor([1., 2., 3.]))" in out
    assert "      broadcast_bias.py:5 in add_sample_bias" in out.splitlines()  # clickable, relative to the cwd
    assert f"check: {root / 'exercises' / PILOTS[0] / 'test_public.py'}:" in out
    assert "      | debug: x shape (2, 3)" in out.splitlines()  # the candidate's print, under its check
    assert out.splitlines()[-1].startswith("2 failed, 1 passed in ")


def test_grade_reports_never_carry_the_candidates_output(root, tmp_path):
    """`check` shows what the candidate's code printed (above); a grading run keeps it out of its
    reports, where printed text could pose as a verdict in front of the interviewer."""
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "broadcast_bias.py").write_text(WRONG)
    result = run(root, "grade", str(sub), "--runtime", "local", "--json", str(tmp_path / "r.json"),
                 "--markdown", str(tmp_path / "r.md"), "--junit", str(tmp_path / "r.xml"), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    checks = [c for e in json.loads((tmp_path / "r.json").read_text())["exercises"] for c in e["checks"]]
    assert any(c["outcome"] == "failed" and c["visibility"] == "public" for c in checks)  # it did run and print
    assert all(not c.get("output") for c in checks)
    for report in ("r.json", "r.md", "r.xml"):
        assert "debug: x shape" not in (tmp_path / report).read_text(), report


def test_check_k_selects_checks_by_name(root):
    result = run(root, "check", "05", "-k", "pairwise", "--path", str(SOLUTION))
    assert result.exit_code == 0, result.output
    assert "test_feature_bias_example" not in result.output
    assert result.output.splitlines()[-1].startswith("1 passed in ")


def test_check_in_an_exercise_folder_with_x_and_q(root, monkeypatch):
    result = run(root, "check", "-x", "-q", cwd=root / "exercises" / PILOTS[0])
    assert result.exit_code == 3, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("05_broadcast_bias (")
    assert sum(line.startswith("  ✗ ") for line in lines) == 1  # stopped at the first failure
    assert "  - " not in result.output  # -q: only failing checks
    assert lines[-1].startswith("1 failed, 2 not run in ")


def test_check_arguments_resolve_like_pytest(root, tmp_path):
    from grader.catalog import Catalog
    from grader.check_select import resolve_check
    from grader.errors import UsageError

    catalog = Catalog.load(root)
    assert resolve_check(catalog, ("autograd",), False, None).exercises == ["10_autograd_basics"]
    stub = root / "exercises" / PILOTS[0] / "broadcast_bias.py"
    target = resolve_check(catalog, ("broadcast_bias.py",), False, None, cwd=stub.parent)
    assert (target.exercises, target.path) == (["05_broadcast_bias"], root / "exercises")
    with pytest.raises(UsageError, match="not an exercise's file"):
        resolve_check(catalog, ("notes.py",), False, None)
    with pytest.raises(UsageError, match="name one or more exercises"):
        resolve_check(catalog, (), False, None, cwd=tmp_path)


def test_shell_completion_offers_exercises_and_tracks(root):
    def complete(words: str, cword: int) -> list[str]:
        with contextlib.chdir(root):
            result = CliRunner().invoke(cli, [], prog_name="grader", env={
                "GRADER_ROOT": str(root), "_GRADER_COMPLETE": "bash_complete", "COMP_WORDS": words,
                "COMP_CWORD": str(cword)})
        return [line.split(",", 1)[1] for line in result.output.splitlines()]

    assert complete("grader check 0", 2) == ["05_broadcast_bias"]
    assert complete("grader check auto", 2) == ["10_autograd_basics", "autograd"]
    assert complete("grader grade sub.zip -e 05,1", 4) == ["05,10_autograd_basics"]


def test_check_k_matching_nothing_is_a_usage_error(root):
    result = run(root, "check", "05", "-k", "no_such_check_name")
    assert result.exit_code == 2
    assert "no check matches -k 'no_such_check_name'" in result.output


def test_engine_refuses_a_memory_limit_too_small_for_torch(root):
    from grader.errors import UsageError
    from grader.grading import grade
    from grader.sandbox.limits import Limits

    with pytest.raises(UsageError, match="cannot even import torch"):
        grade([SOLUTION], runtime="local", exercises=["05"], root=root, limits=Limits(memory_bytes=200 << 20))
