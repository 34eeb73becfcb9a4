"""The candidate's side of issue 45: where their code failed (file:line), the public checks under
plain pytest in an installed bundle, `grader watch`'s short limit and its list, `grader reset`
without a terminal, `grader submit`, Ctrl-C during `grader check`, and the bad inputs of the
issue that are a candidate's (notebooks that give nothing to grade, `grade` inside a bundle).

Every bad input: its exit code, its message, and what is left on disk."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import export
from grader.cli import cli
from grader.judge.plugin import innermost_frame

ROOT = Path(__file__).resolve().parents[2]
GRADER = str(Path(sys.executable).parent / "grader")
REF = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"
STUB_REL = Path("exercises/tensors/05_broadcast_bias/broadcast_bias.py")
LOOP = REF.read_text().replace("    return x + bias\n", "    while True:\n        pass\n", 1)
WRONG = REF.read_text().replace("return x + bias.unsqueeze(1)", "return x + bias")  # a shape error in add_sample_bias
WRONG_LINE = WRONG.splitlines().index("    return x + bias", WRONG.splitlines().index("    return x + bias") + 1) + 1


def _env(**extra: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("GRADER_ROOT", "PYTHONPATH")} | extra


def invoke(cwd: Path, *args: str, env: dict | None = None, input: str | None = None):
    with contextlib.chdir(cwd):
        return CliRunner().invoke(cli, list(args), env={"COLUMNS": "200", **(env or {})}, prog_name="grader",
                                  input=input)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("candidate") / "bundle"
    export.export_bundle(out, exercises=["05", "10", "14"], root=ROOT)
    return out


@pytest.fixture
def work(bundle, tmp_path) -> Path:
    return Path(shutil.copytree(bundle, tmp_path / "bundle"))


def processes_with(marker: str) -> list[str]:
    """Processes whose command line or environment mentions `marker` (a private TMPDIR)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (marker.encode() in cmdline or f"TMPDIR={marker}".encode() in environ):
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry}: {shown}")
    return found


def gone(marker: str, within_s: float = 5.0) -> list[str]:
    deadline = time.monotonic() + within_s
    while (found := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a terminal's user has it (a background shell ignores it)


# --- file:line of the candidate's code -------------------------------------------------------------------

def test_innermost_frame_keeps_the_file_line_above_python_311_carets():
    where = ('  File "/b/exercises/tensors/05_broadcast_bias/broadcast_bias.py", line 15, in add_sample_bias\n'
             '    return helper(x, bias)\n'
             '           ^^^^^^^^^^^^^^^\n'
             '  File "/b/exercises/tensors/05_broadcast_bias/broadcast_bias.py", line 19, in helper\n'
             '    return x + bias\n'
             '           ~~^~~~~~\n')
    assert innermost_frame(where).splitlines() == [
        '  File "/b/exercises/tensors/05_broadcast_bias/broadcast_bias.py", line 19, in helper',
        '    return x + bias', '           ~~^~~~~~']
    assert innermost_frame('  File "x.py", line 3, in f\n    y = 1 / 0\n') == '  File "x.py", line 3, in f\n    y = 1 / 0'
    assert innermost_frame("") == ""


def test_a_shape_error_shows_the_candidates_file_and_line(tmp_path):
    (tmp_path / "broadcast_bias.py").write_text(WRONG)
    result = invoke(tmp_path, "check", "broadcast_bias.py", env={"GRADER_ROOT": str(ROOT)})
    assert result.exit_code == 3, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if "raised RuntimeError: The size of tensor a (3) must match" in line)
    frame = [line.strip() for line in lines[at + 1:at + 6]]
    where = frame.index(f"broadcast_bias.py:{WRONG_LINE} in add_sample_bias")  # clickable: relative to here
    assert frame[where + 1:where + 3] == ["return x + bias", "~~^~~~~~"], frame


def test_a_grading_report_names_the_file_as_the_submission_does(tmp_path):
    """Not the folder it was graded from (a temporary one, for an archive): its path inside the
    submission, the same in every runtime."""
    from grader.grading import grade

    sub = tmp_path / "alice" / "tensors" / "05_broadcast_bias"
    sub.mkdir(parents=True)
    (sub / "broadcast_bias.py").write_text(WRONG)
    run = grade([tmp_path / "alice"], runtime="local", exercises=["05"], root=ROOT)
    message = next(c.message for c in run.submissions[0].exercises[0].checks if "must match" in c.message)
    assert f'File "tensors/05_broadcast_bias/broadcast_bias.py", line {WRONG_LINE}, in add_sample_bias' in message
    assert str(tmp_path) not in message


# --- plain pytest in the installed bundle -------------------------------------------------------------------

@pytest.fixture(scope="module")
def installed(bundle, tmp_path_factory) -> tuple[Path, Path]:
    """The bundle committed, cloned afresh and installed (editable) in a new virtual environment,
    as its README says (dependencies through a .pth file: nothing is downloaded)."""
    work = tmp_path_factory.mktemp("clone")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    shutil.copytree(bundle, work / "origin")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bundle"]):
        subprocess.run([*git, *args], cwd=work / "origin", check=True)
    subprocess.run([*git, "clone", "-q", str(work / "origin"), str(work / "clone")], check=True)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "dev-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-deps", "--no-build-isolation", "--no-index", "-e", str(work / "clone")], check=True,
                   capture_output=True)
    return work / "clone", venv / "bin"


def _pytest(clone: Path, bin_dir: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "python"), "-m", "pytest", "-p", "no:randomly", "-p", "no:xdist", *args],
                          cwd=cwd or clone, capture_output=True, text=True, env=_env(), timeout=300)


def test_plain_pytest_runs_the_public_checks_on_the_stubs(installed):
    clone, bin_dir = installed
    result = _pytest(clone, bin_dir, "-q")
    assert "fixture 'sub' not found" not in result.stdout
    assert result.returncode == 1, result.stdout + result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ failed in [\d.]+s", summary), summary
    assert "NotImplementedError" in result.stdout
    assert (clone / "conftest.py").is_file() and (clone / "conftest.py").read_text() == \
        (ROOT / "grader" / "bundle" / "conftest.py.tmpl").read_text()


def test_plain_pytest_passes_the_reference_and_supports_lf_and_x(installed):
    clone, bin_dir = installed
    folder = clone / "exercises" / "autograd" / "14_stop_gradient"
    stub = folder / "stop_gradient.py"
    original = stub.read_text()
    try:
        # 14's checks probe the candidate's module with objects of their own (copied there, as the
        # judge's worker gets them): the reference passes only if that is so here too
        stub.write_text((ROOT / "solutions" / "autograd" / "14_stop_gradient" / "stop_gradient.py").read_text())
        (clone / STUB_REL).write_text(WRONG)
        everything = _pytest(clone, bin_dir, "-q", "exercises/autograd/14_stop_gradient", "exercises/tensors")
        assert everything.returncode == 1, everything.stdout
        assert re.search(r"1 failed, \d+ passed", everything.stdout), everything.stdout
        assert f"broadcast_bias.py:{WRONG_LINE}: RuntimeError" in everything.stdout  # pytest's own traceback
        # from inside the exercise's folder, as an editor runs it: the bundle's conftest.py is found
        inside = _pytest(clone, bin_dir, "-q", "test_public.py", cwd=folder)
        assert inside.returncode == 0 and re.search(r"\d+ passed", inside.stdout), inside.stdout + inside.stderr
        (clone / STUB_REL).write_text(REF.read_text())
        last_failed = _pytest(clone, bin_dir, "-q", "--lf", "exercises/autograd/14_stop_gradient", "exercises/tensors")
        assert last_failed.returncode == 0 and re.search(r"^1 passed", last_failed.stdout, re.M), last_failed.stdout
        first = _pytest(clone, bin_dir, "-q", "-x", "exercises/autograd/10_autograd_basics")
        assert first.returncode == 1 and re.search(r"^1 failed", first.stdout, re.M), first.stdout
    finally:
        stub.write_text(original)
        (clone / STUB_REL).write_text((clone.parent / "origin" / STUB_REL).read_text())


def test_the_bundles_conftest_never_reaches_grading(installed, tmp_path):
    """`grader check` runs the checks with --noconftest: a conftest.py that would break every
    check (or fake them) changes nothing; the export's scan carried it (it is the grader's)."""
    clone, bin_dir = installed
    conftest = clone / "conftest.py"
    original = conftest.read_text()
    try:
        conftest.write_text("import pytest\n\n@pytest.fixture\ndef sub():\n    raise SystemExit('hijacked')\n")
        (clone / STUB_REL).write_text(REF.read_text())
        result = subprocess.run([str(bin_dir / "grader"), "check", "05"], cwd=clone, capture_output=True, text=True,
                                env=_env(COLUMNS="200"), timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "3/3 checks passed" in result.stdout
    finally:
        conftest.write_text(original)
        (clone / STUB_REL).write_text((clone.parent / "origin" / STUB_REL).read_text())


def test_local_handles_answer_as_remote_ones():
    import torch

    from grader.practice.plain_pytest import LocalHandle, _received

    q = _received(torch.nn.Sequential(torch.nn.Linear(2, 2)), "quantize()")
    assert isinstance(q, LocalHandle)
    assert q.remote_type == "torch.nn.modules.container.Sequential"
    assert q[0].remote_type == "torch.nn.modules.linear.Linear"
    weight = q[0].weight  # data: a copy, as the codec brings it
    assert isinstance(weight, torch.Tensor) and weight.requires_grad
    weight.data.zero_()
    assert q[0].weight.abs().sum() > 0


def test_a_notebook_saved_last_is_what_watch_and_plain_pytest_run(tmp_path):
    """As `grader check` chooses: the notebook when it was saved after the .py (watch's rerun
    failed on it with an AttributeError before)."""
    from grader.catalog import Catalog
    from grader.practice.plain_pytest import LocalSubmission
    from grader.practice.session import RerunJob

    bundle = tmp_path / "bundle"
    export.export_bundle(bundle, exercises=["05"], root=ROOT, notebooks=True)
    folder = bundle / STUB_REL.parent
    notebook = folder / "broadcast_bias.ipynb"
    data = json.loads(notebook.read_text())
    data["cells"] = [c for c in data["cells"] if c["cell_type"] != "code"] + [_code(REF.read_text())]
    notebook.write_text(json.dumps(data))
    os.utime(notebook, (time.time() + 5, time.time() + 5))
    catalog = Catalog.load(bundle, allow_missing_stub=True)
    job = RerunJob.build(catalog, catalog.get("05"))
    try:
        assert job.candidate.notebook is not None and "bias.unsqueeze(1)" in job.candidate.path.read_text()
        assert job.spec["quick_limits"] is True  # watch's short limit (none with --timeout-s)
    finally:
        job.discard()
    sub = LocalSubmission.of(folder.resolve(), tmp_path)
    try:
        assert sub._shown == "tensors/05_broadcast_bias/broadcast_bias.ipynb"
        import torch

        assert sub.add_sample_bias(torch.zeros(2, 1), torch.ones(2)).tolist() == [[1.0], [1.0]]
    finally:
        sub.close()


# --- grader watch: a short limit, the list by exercise numbers ---------------------------------------------

def test_watch_limit_is_short_but_never_over_the_full_one():
    from grader.judge.timelimit import endless_loop_note, watch_limit

    assert [watch_limit(s) for s in (30, 60, 90, 120, 3)] == [5, 10, 15, 20, 3]
    note = endless_loop_note("worker killed: time limit 5 s exceeded while f()", 5, 30, "05_broadcast_bias")
    assert note.endswith("likely an endless loop: `grader watch` stops a check after 5 s of CPU time "
                         "(`grader check 05` allows 30 s, if your code is only slow)")
    assert endless_loop_note("x raised ValueError", 5, 30) == "x raised ValueError"


def test_watch_stops_an_endless_loop_in_seconds_and_lists_by_exercise_number(bundle, tmp_path):
    pexpect = pytest.importorskip("pexpect", reason="pexpect drives grader watch: install the dev extras")
    from pexpect.popen_spawn import PopenSpawn

    work = Path(shutil.copytree(bundle, tmp_path / "bundle"))
    marker = tmp_path / "tmp"
    marker.mkdir()
    child = PopenSpawn([GRADER, "watch", "05"], cwd=str(work), env=_env(TMPDIR=str(marker), COLUMNS="140"),
                       encoding="utf-8", timeout=120, preexec_fn=_sigint_default)
    try:
        child.expect(r"0/3 checks passed")
        child.expect(r"Progress ")
        (work / STUB_REL).write_text(LOOP)
        saved = time.monotonic()
        child.expect(r"worker killed: time limit 5 s exceeded while broadcast_bias\.add_feature_bias\(\)")
        words = "likely an endless loop: `grader watch` stops a check after 5 s of CPU time (`grader check 05` allows 30 s"
        child.expect(r"\s+".join(map(re.escape, words.split())))  # the line may wrap
        assert time.monotonic() - saved < 25  # the exercise's limit is 30 s of CPU time
        child.sendline("l")
        child.expect(r"Type an exercise's number \(e\.g\. 05\) or name and Enter to switch to it")
        child.sendline("10")  # the exercise's number, as `grader list` shows it: not a place in the list
        child.expect(r"--- 10_autograd_basics · switched to 10_autograd_basics · ")
        child.expect(r"10_autograd_basics \(autograd/10_autograd_basics/autograd_basics\.py\): 0/\d+ checks passed")
        child.sendline("l")
        child.sendline("99")
        words = "no exercise '99' in this bundle: press l and type one of 05, 10, 14 (or its name), then Enter"
        child.expect(r"\s+".join(map(re.escape, words.split())))
        child.sendline("q")
        child.expect(pexpect.EOF)
        assert child.wait() == 0
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
    assert gone(str(marker)) == []


# --- grader reset -------------------------------------------------------------------------------------------

def test_reset_without_a_terminal_names_yes_and_changes_nothing(work):
    stub = work / STUB_REL
    stub.write_text(WRONG)
    result = subprocess.run([GRADER, "reset", "05"], cwd=work, stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, env=_env(), timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Aborted" not in result.stdout + result.stderr
    assert result.stderr.strip().endswith(
        "Error: `grader reset 05` asks before it replaces your file, and there was no answer to read (no terminal): "
        "run `grader reset 05 --yes` to reset it without asking (your file is kept as a backup). Nothing was changed")
    assert stub.read_text() == WRONG and not list(stub.parent.glob("*.bak"))


def test_after_a_reset_list_shows_not_started_and_backups_are_ignored_by_git(work):
    from grader.practice.state import PracticeState

    PracticeState(work).record_result("05_broadcast_bias", 2, 3)
    PracticeState(work).record_hint("05_broadcast_bias", 1)
    (work / STUB_REL).write_text(WRONG)
    before = invoke(work, "list")
    assert re.search(r"05_broadcast_bias .* failing 2/3 +1 ", before.output), before.output
    assert invoke(work, "reset", "05", "--yes").exit_code == 0
    after = invoke(work, "list")
    assert re.search(r"05_broadcast_bias .* not started +1 ", after.output), after.output  # hints seen are kept
    backup = next((work / STUB_REL).parent.glob("broadcast_bias.py.*.bak"))
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    ignored = subprocess.run(["git", "check-ignore", str(backup.relative_to(work)), ".pytest_cache/x",
                              "submission.zip"], cwd=work, capture_output=True, text=True)
    assert ignored.stdout.split() == [str(backup.relative_to(work)), ".pytest_cache/x", "submission.zip"]
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=work, capture_output=True,
                            text=True, check=True).stdout
    assert ".bak" not in status and "broadcast_bias.py" in status


# --- grader submit --------------------------------------------------------------------------------------------

def test_submit_packs_the_exercise_files_only_and_grade_finds_them(work, tmp_path):
    (work / STUB_REL).write_text(REF.read_text())
    (work / STUB_REL).with_name("broadcast_bias.py.20260101T000000Z.bak").write_text("old")
    (work / STUB_REL).with_name("notes.txt").write_text("mine")
    result = invoke(work / "exercises", "submit")
    assert result.exit_code == 0, result.output
    archive = work / "submission.zip"
    assert f"Wrote {archive} (3 files" in result.output
    assert re.search(r"05_broadcast_bias +broadcast_bias\.py +not started", result.output), result.output
    assert "Warning: 10_autograd_basics is the stub as you received it (not started?)" in result.output
    with zipfile.ZipFile(archive) as zf:
        names = sorted(zf.namelist())
        assert zf.read(str(STUB_REL)) == REF.read_bytes()
    assert names == sorted(["exercises/tensors/05_broadcast_bias/broadcast_bias.py",
                            "exercises/autograd/10_autograd_basics/autograd_basics.py",
                            "exercises/autograd/14_stop_gradient/stop_gradient.py"])
    graded = invoke(ROOT, "grade", str(archive), "-e", "05", "--runtime", "local", "--json", str(tmp_path / "r.json"))
    assert graded.exit_code == 0, graded.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["exercises"][0]["file"].endswith("broadcast_bias.py")
    assert report["percent"] == 100


def test_submit_carries_the_progress_record_of_a_bundle_that_records_it(tmp_path):
    bundle = tmp_path / "bundle"
    export.export_bundle(bundle, exercises=["05"], root=ROOT, record_progress=True)
    from grader.practice.state import PracticeState

    PracticeState(bundle).record_result("05_broadcast_bias", 1, 3)
    result = invoke(bundle, "submit", "-o", str(tmp_path / "out" / "alice.zip"))
    assert result.exit_code == 0, result.output
    assert "Your progress record (exercises/.grader-progress.jsonl) is included" in result.output
    with zipfile.ZipFile(tmp_path / "out" / "alice.zip") as zf:
        assert sorted(zf.namelist()) == ["exercises/.grader-progress.jsonl",
                                         "exercises/tensors/05_broadcast_bias/broadcast_bias.py"]
    assert not (bundle / "submission.zip").exists()


@pytest.mark.parametrize("case", ["inside_exercises", "not_zip", "link"])
def test_submit_refuses_bad_output_and_links_writing_nothing(work, case):
    args = {"inside_exercises": ["-o", str(work / "exercises" / "s.zip")], "not_zip": ["-o", str(work / "s.tar")],
            "link": []}[case]
    if case == "link":
        target = work / "elsewhere.py"
        target.write_text(REF.read_text())
        (work / STUB_REL).unlink()
        (work / STUB_REL).symlink_to(target)
    result = invoke(work, "submit", *args)
    assert result.exit_code == 2, result.output
    message = {"inside_exercises": "is inside exercises/, among the files it packs: write it elsewhere",
               "not_zip": "the submission is a .zip archive: name it so",
               "link": "broadcast_bias.py is a symbolic link: the grader refuses links"}[case]
    assert message in result.output
    assert not list(work.rglob("*.zip")) and not list(work.rglob("s.tar"))


# --- Ctrl-C during grader check ---------------------------------------------------------------------------------

@pytest.mark.parametrize("when", ["judge starting", "check running"])
def test_ctrl_c_during_check_is_quick_and_in_candidate_words(tmp_path, when):
    (tmp_path / "broadcast_bias.py").write_text(LOOP)
    marker = tmp_path / "tmp"
    marker.mkdir()
    proc = subprocess.Popen([GRADER, "check", "broadcast_bias.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_sigint_default,
                            env=_env(TMPDIR=str(marker), GRADER_ROOT=str(ROOT)))
    try:
        # the judge template starting (importing torch), or a worker in the endless loop
        wanted = "grader.runtimes.template" if when == "judge starting" else "grader.sandbox.zygote"
        deadline = time.monotonic() + 90
        while not any(wanted in p for p in processes_with(str(marker))):
            assert time.monotonic() < deadline, f"no {wanted} started"
            time.sleep(0.05)
        time.sleep(0.2 if when == "judge starting" else 2)
        pressed = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal's foreground process group
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - pressed
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err == ("Stopped: the checks were interrupted before they finished, so there is no result (nothing was "
                   "recorded). Run the same command again to check.\n")
    assert "submissions graded" not in out + err
    assert took < 4, f"{took:.1f} s from Ctrl-C to exit"
    assert gone(str(marker)) == []


def test_a_template_that_dies_while_starting_is_reported_not_waited_on_forever():
    """Its failure path closed the template under the lock that close() takes: the grader hung.
    Ctrl-C during a judge's start relies on that path (it kills the starting template)."""
    import threading

    from grader.runtimes.template import JudgeTemplate, TemplateUnavailable

    template = JudgeTemplate("/bin/false", {})
    outcome: list = []

    def fork() -> None:
        try:
            template.fork("spec.json", "/", os.devnull, "/tmp", [])
        except TemplateUnavailable as exc:
            outcome.append(exc)

    thread = threading.Thread(target=fork, daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "fork() hung on a template that died while starting"
    assert outcome and "the judge template did not start" in str(outcome[0])
    template.close()


# --- notebooks that give nothing to grade ------------------------------------------------------------------------

def _notebook(cells: list[dict]) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


def _code(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


NOTEBOOKS = {
    "no code cells": (json.dumps(_notebook([{"cell_type": "markdown", "metadata": {}, "source": "# My answers"}])),
                      "answers.ipynb has no code cells, so it holds no answer: write your answers in code cells and "
                      "mark each answer's cells with a first line `# grader: 01`"),
    "marked 99": (json.dumps(_notebook([_code("# grader: 99\nimport torch\n")])),
                  "answers.ipynb marks its cells for no exercise here (`grader:99`: no exercise has that number or "
                  "name): mark them with the exercise's number as `grader list` shows it (`# grader: 01`)"),
    "broken JSON": (json.dumps(_notebook([_code("# grader: 05\nimport torch\n"), _code("# grader: 10\nx = 1\n")]))[:-40],
                    "answers.ipynb is not a notebook: its JSON does not parse ("),
}


@pytest.mark.parametrize("case", sorted(NOTEBOOKS))
def test_a_notebook_that_gives_nothing_says_what_is_wrong_with_it(tmp_path, case):
    text, message = NOTEBOOKS[case]
    notebook = tmp_path / "answers.ipynb"
    notebook.write_text(text)
    report = tmp_path / "report.json"
    result = invoke(tmp_path, "grade", str(notebook), "--runtime", "local", "--json", str(report),
                    env={"GRADER_ROOT": str(ROOT)})
    assert result.exit_code == 2, result.output
    assert "no exercise files found" not in result.output
    assert f"Error: {message}" in result.output
    assert notebook.read_text() == text  # untouched
    assert json.loads(report.read_text())["submissions"][0]["error"].startswith(message)


def test_a_folder_whose_notebooks_give_nothing_names_each(tmp_path):
    folder = tmp_path / "alice"
    folder.mkdir()
    for name, case in (("a.ipynb", "broken JSON"), ("b.ipynb", "marked 99")):
        (folder / name).write_text(NOTEBOOKS[case][0])
    result = invoke(tmp_path, "grade", str(folder), "--runtime", "local", env={"GRADER_ROOT": str(ROOT)})
    assert result.exit_code == 2, result.output
    assert re.search(r"alice: no exercise files found \(looked for e\.g\. \S+\), and its notebooks give none: "
                     r"a\.ipynb is not a notebook: its JSON does not parse .*; b\.ipynb marks its cells for no "
                     r"exercise here \(`grader:99`", " ".join(result.output.split())), result.output


# --- grade inside a bundle ----------------------------------------------------------------------------------------

def test_grade_inside_a_bundle_never_uses_another_trees_hidden_checks(bundle, tmp_path, monkeypatch):
    """Even where a Docker daemon has the grading image (`--runtime auto` would pick it): the
    README's exit 2, and no report written. `--runtime docker` asks for the image's checks."""
    import grader.runtimes.docker as docker_runtime
    from grader.runtimes import resolve_runtime

    monkeypatch.setattr(docker_runtime, "daemon_and_image_available", lambda image: {})
    assert resolve_runtime("auto", None, bundle) == ("local", None)
    assert resolve_runtime("auto", None, ROOT, allow_stale_image=True)[0] == "docker"
    report = tmp_path / "r.json"
    result = invoke(bundle, "grade", "exercises", "--json", str(report))
    assert result.exit_code == 2, result.output
    assert "Error: hidden checks are not available here: 05_broadcast_bias" in result.output
    assert "Interviewers: grade with the grading image (`--runtime docker`)" in result.output
    assert not report.exists()
