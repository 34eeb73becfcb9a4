"""Practice mode without the watch loop: which tree a command works on, hints (present for every
exercise, exported, scanned), reset, `grader list` status, and the opt-in progress record with
its HTML timeline."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import export
from grader.catalog import Catalog
from grader.cli import cli
from grader.errors import ExerciseDefinitionError, UsageError
from grader.practice.hints import MAX_HINTS, load_hints, parse_hints
from grader.practice.reset import reset_exercise
from grader.practice.state import PracticeState
from grader.progress_record import read_progress
from grader.roots import INSTALL_TREE, discover_root, discover_working_root, find_root

ROOT = Path(__file__).resolve().parents[2]
GRADER = str(Path(sys.executable).parent / "grader")


def _env(**extra: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("GRADER_ROOT", "PYTHONPATH")} | extra


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("practice") / "bundle"
    export.export_bundle(out, exercises=["05", "10"], root=ROOT)
    return out


def invoke(cwd: Path, *args: str, env: dict | None = None, input: str | None = None):
    with contextlib.chdir(cwd):
        return CliRunner().invoke(cli, list(args), env={"COLUMNS": "200", **(env or {})}, prog_name="grader",
                                  input=input)


# --- which tree --------------------------------------------------------------------------------------------

def test_root_is_found_by_walking_up_from_the_current_folder(bundle, monkeypatch):
    monkeypatch.setenv("GRADER_ROOT", str(ROOT))  # the enclosing tree comes first
    deep = bundle / "exercises" / "tensors" / "05_broadcast_bias"
    found = find_root(deep)
    assert (found.path, found.found_by, found.is_bundle) == (bundle.resolve(), "current folder", True)


def test_root_falls_back_to_grader_root_then_the_install_tree(bundle, tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_ROOT", str(bundle))
    assert find_root(tmp_path).path == bundle.resolve()
    assert find_root(tmp_path).found_by == "$GRADER_ROOT"
    monkeypatch.delenv("GRADER_ROOT")
    assert find_root(tmp_path).path == INSTALL_TREE == ROOT
    assert discover_root(tmp_path) == ROOT
    with pytest.raises(UsageError, match=r"`grader reset` works on the exercise files of the bundle or checkout "
                                         r"you run it in, and .* is not inside one: cd into your bundle"):
        discover_working_root("reset", tmp_path)


def test_check_in_a_bundle_grades_the_bundles_files(bundle, tmp_path):
    """The issue's report: a grader installed from the checkout, run in a bundle, checked the
    checkout's stubs and said NotImplementedError for a completed file."""
    work = tmp_path / "b"
    shutil.copytree(bundle, work)
    shutil.copy(ROOT / "solutions/tensors/05_broadcast_bias/broadcast_bias.py",
                work / "exercises/tensors/05_broadcast_bias/broadcast_bias.py")
    result = subprocess.run([GRADER, "check", "05"], cwd=work / "exercises", capture_output=True, text=True,
                            env=_env(COLUMNS="200"), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("05_broadcast_bias (tensors/05_broadcast_bias/broadcast_bias.py): "
                                    "3/3 checks passed")
    # ... and recorded it: `grader list` there shows the status
    listed = subprocess.run([GRADER, "list"], cwd=work, capture_output=True, text=True, env=_env(), timeout=60)
    assert re.search(r"^05_broadcast_bias .* passing 3/3 +- +Broadcasting", listed.stdout, re.M), listed.stdout
    assert re.search(r"^10_autograd_basics .* not started +- +Derivatives", listed.stdout, re.M), listed.stdout


# --- hints ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ex", Catalog.load(ROOT).exercises, ids=lambda ex: ex.id)
def test_every_exercise_has_one_to_three_hints(ex):
    hints = load_hints(ex)
    assert 1 <= len(hints) <= MAX_HINTS
    assert all(len(h) > 40 for h in hints), "a hint says something a candidate can act on"


def test_an_exercise_without_hints_is_named(tmp_path):
    folder = tmp_path / "exercises" / "tensors" / "05_broadcast_bias"
    shutil.copytree(ROOT / "exercises" / "tensors" / "05_broadcast_bias", folder)
    (folder / "hints.md").unlink()
    ex = Catalog.load(tmp_path).get("05")
    with pytest.raises(ExerciseDefinitionError, match=r"hints\.md: missing: every exercise has one to 3 hints"):
        load_hints(ex)


@pytest.mark.parametrize("text,problem", [
    ("# Hints\nnothing here\n", "no hint"),
    ("## Hint 1\na\n## Hint 2\nb\n## Hint 3\nc\n## Hint 4\nd\n", "4 hints; at most 3"),
    ("## Hint 1\na\n## Hint 3\nb\n", r"numbered 1, 2, 3 in order, got \[1, 3\]"),
    ("## Hint 1\n\n## Hint 2\nb\n", "hint 1 is empty"),
])
def test_malformed_hints_are_rejected(text, problem):
    with pytest.raises(ExerciseDefinitionError, match=problem):
        parse_hints(text, "x/hints.md")


def test_hints_are_exported(bundle):
    for ex_dir in ("tensors/05_broadcast_bias", "autograd/10_autograd_basics"):
        assert (bundle / "exercises" / ex_dir / "hints.md").read_text() == \
            (ROOT / "exercises" / ex_dir / "hints.md").read_text()


def test_the_export_scan_covers_hints(tmp_path):
    root = tmp_path / "root"
    rel = "tensors/05_broadcast_bias"
    shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
    shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    solution_line = "    return (a_sq + b_sq - 2.0 * a @ b.T).clamp_min(0.0)"
    assert solution_line in (root / "solutions" / rel / "broadcast_bias.py").read_text()
    hints = root / "exercises" / rel / "hints.md"
    hints.write_text(hints.read_text() + f"\n```python\n{solution_line}\n```\n")
    with pytest.raises(export.ExportError, match=r"exercises/tensors/05_broadcast_bias/hints\.md:\d+ holds "
                                                 r"solutions/tensors/05_broadcast_bias/broadcast_bias\.py:\d+"):
        export.export_bundle(tmp_path / "out", root=root)
    assert not (tmp_path / "out").exists()


def test_grader_hint_reveals_one_more_each_time_and_list_counts_them(bundle, tmp_path):
    work = tmp_path / "b"
    shutil.copytree(bundle, work)
    first = invoke(work, "hint", "10")
    assert first.exit_code == 0, first.output
    assert first.output.startswith("Hint 1/3 for 10_autograd_basics:\n")
    assert first.output.endswith("(2 more hints: run `grader hint 10` again)\n")
    invoke(work, "hint", "10")
    third = invoke(work, "hint", "10")
    assert third.output.count("Hint ") == 3 and third.output.endswith("(that was the last hint)\n")
    assert invoke(work, "hint", "10").output == third.output  # no fourth
    listed = invoke(work, "list")
    assert re.search(r"^10_autograd_basics .* not started +3 +Derivatives", listed.output, re.M), listed.output
    assert PracticeState(work).get("10_autograd_basics").hints == 3


# --- reset --------------------------------------------------------------------------------------------------

def test_reset_asks_and_keeps_the_file_when_declined(bundle, tmp_path):
    work = tmp_path / "b"
    shutil.copytree(bundle, work)
    stub = work / "exercises/tensors/05_broadcast_bias/broadcast_bias.py"
    stub.write_text("# my work\n")
    result = invoke(work, "reset", "05", input="n\n")
    assert result.exit_code == 0
    assert "Reset " in result.output and "Nothing was changed." in result.output
    assert stub.read_text() == "# my work\n" and not list(stub.parent.glob("*.bak"))


def test_reset_of_a_deleted_file_restores_the_stub(bundle, tmp_path):
    work = tmp_path / "b"
    shutil.copytree(bundle, work)
    stub = work / "exercises/tensors/05_broadcast_bias/broadcast_bias.py"
    stub.unlink()
    result = invoke(work, "reset", "05", "--yes")
    assert result.exit_code == 0, result.output
    assert result.output == f"Reset {stub} to its stub. (there was no work of yours to keep)\n"
    assert stub.read_bytes() == (ROOT / "exercises/tensors/05_broadcast_bias/broadcast_bias.py").read_bytes()


def test_reset_in_the_checkout_takes_the_stub_from_git(tmp_path):
    root = tmp_path / "checkout"
    rel = "exercises/tensors/05_broadcast_bias"
    shutil.copytree(ROOT / rel, root / rel)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=root, check=True)
    ex = Catalog.load(root).get("05")
    original = ex.stub.read_bytes()
    ex.stub.write_text("mine\n")
    done = reset_exercise(root, ex)
    assert ex.stub.read_bytes() == original and done.backup.read_text() == "mine\n"
    assert re.fullmatch(r"broadcast_bias\.py\.\d{8}T\d{6}Z\.bak", done.backup.name)


# --- the progress record ---------------------------------------------------------------------------------------

def test_without_record_progress_nothing_is_recorded(bundle, tmp_path):
    work = tmp_path / "b"
    shutil.copytree(bundle, work)
    invoke(work, "hint", "05")
    assert not (work / "exercises" / ".grader-progress.jsonl").exists()
    assert "records your progress" not in (work / "README.md").read_text()


def test_record_progress_bundle_records_and_grade_shows_an_unverified_timeline(tmp_path):
    out = tmp_path / "b"
    result = invoke(ROOT, "export", str(out), "-e", "05", "--record-progress")
    assert result.exit_code == 0, result.output
    assert "**This bundle records your progress.**" in (out / "README.md").read_text()
    PracticeState(out).record_result("05_broadcast_bias", 1, 3)
    invoke(out, "hint", "05")
    PracticeState(out).record_result("05_broadcast_bias", 3, 3)
    log = out / "exercises" / ".grader-progress.jsonl"
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["event"], e["passed"], e["total"], e["hints"]) for e in entries] == \
        [("check", 1, 3, 0), ("hint", 1, 3, 1), ("check", 3, 3, 1)]
    with log.open("a") as fh:  # the candidate's file: junk is skipped, not trusted
        fh.write('{"time": 1, "exercise": "x"}\nnot json\n')
    assert len(read_progress(out / "exercises")) == 3
    html = tmp_path / "r.html"
    graded = invoke(ROOT, "grade", str(out / "exercises"), "--runtime", "local", "-e", "05", "--html", str(html), "-q")
    assert graded.exit_code == 0, graded.output
    page = html.read_text()
    assert "exercises: progress record (unverified)" in page
    assert "Recorded on the candidate's machine" in page and "not verified" in page
    assert page.count('data-event="check"') == 2 and page.count('data-event="hint"') == 1
