"""`grader export`: the candidate bundle carries no hidden check, solution or grader's note; it
installs from a fresh clone and `grader check --all` runs in it; its pull-request workflows pass
actionlint and GitHub's workflow schema, pin every action by commit, and grade in the trusted
workflow only."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from grader import export
from grader.catalog import Catalog, Exercise
from grader.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).resolve().parents[1] / "data" / "schemas" / "github-workflow.json"
BIN = Path(sys.executable).parent
PUBLIC_NAMES = {"README.md", "exercise.toml", "test_public.py", "hints.md"}
NOTES = re.compile(r"^## +notes for graders\b", re.IGNORECASE)


def tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if not path:
        pytest.skip(f"{name} is not installed: install the dev extras (pip install -e '.[dev]')")
    return str(path)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "bundle"
    result = subprocess.run([sys.executable, "-m", "grader", "export", str(out)], cwd=ROOT, capture_output=True,
                            text=True, env=_env())
    assert result.returncode == 0, result.stderr
    assert re.match(rf"Exported \d+ exercises to {re.escape(str(out))} \(\d+ files\); scanned for \d+ lines",
                    result.stdout), result.stdout
    return out


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_ROOT", "PYTHONPATH")}
    return env | extra


# --- what the bundle holds ---------------------------------------------------------------------------

def test_bundle_holds_the_candidate_files_only(bundle):
    for name in ("README.md", "pyproject.toml", "constraints.txt", ".gitignore", "conftest.py", "grader/cli.py",
                 ".github/workflows/submission.yml", ".github/workflows/grade.yml"):
        assert (bundle / name).is_file(), f"{name} missing from the bundle"
    exercises = sorted(p for p in (bundle / "exercises").glob("*/*") if p.is_dir())
    catalog = Catalog.load(ROOT)  # every exercise that loads; a broken one is left out with a warning
    assert [p.relative_to(bundle / "exercises") for p in exercises] == sorted(
        Path(ex.track, ex.id) for ex in catalog.exercises)
    for folder in exercises:
        stub = folder.name.split("_", 1)[1] + ".py"
        assert {p.name for p in folder.iterdir()} == PUBLIC_NAMES | {stub}, folder
        readme = (folder / "README.md").read_text()
        assert not any(NOTES.match(line) for line in readme.splitlines()), f"{folder}: notes for graders shipped"
    assert not list(bundle.rglob("test_hidden.py")) and not list(bundle.rglob("solutions"))
    assert not list(bundle.rglob("__pycache__")) and not list(bundle.rglob("*.pyc"))


def _significant(line: str) -> str | None:
    text = line.strip()
    return text if any(ch.isalnum() for ch in text) else None


def _candidate_part(readme: str) -> list[str]:
    kept, skipping = [], False
    for line in readme.splitlines():
        if line.startswith("## "):
            skipping = bool(NOTES.match(line))
        if not skipping:
            kept.append(line)
    return kept


def hidden_lines(root: Path) -> dict[str, str]:
    """This test's own reading of what is secret: every line of every test_hidden.py, every
    interviewer's guide, every file under solutions/ and every "Notes for graders" section, except lines that the public files
    (stubs, public checks, exercise.toml, the candidate part of READMEs, the grader package) hold
    too: those share imports, signatures and docstrings by design."""
    public: set[str] = set()
    secret: dict[str, str] = {}
    for folder in (p for p in (root / "exercises").glob("*/*") if p.is_dir()):
        for path in folder.iterdir():
            lines = path.read_text(errors="replace").splitlines() if path.is_file() else []
            if path.name == "test_hidden.py":
                secret.update({t: f"{path}:{i}" for i, line in enumerate(lines, 1) if (t := _significant(line))})
            elif path.name == "interviewer.md":
                secret.update({t: f"{path}:{i}" for i, line in enumerate(lines, 1) if (t := _significant(line))})
            elif path.name == "README.md":
                public.update(filter(None, map(_significant, _candidate_part("\n".join(lines)))))
                secret.update({t: f"{path} (notes for graders)" for t in map(_significant, lines) if t})
            elif path.suffix in (".py", ".toml"):
                public.update(filter(None, map(_significant, lines)))
    for path in (p for p in (root / "solutions").rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        secret.update({t: f"{path}:{i}" for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                       if (t := _significant(line))})
    for path in (p for p in (root / "grader").rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        public.update(filter(None, map(_significant, path.read_text(errors="replace").splitlines())))
    return {text: where for text, where in secret.items() if text not in public}


def matches(folder: Path, secret: dict[str, str]) -> list[str]:
    found = []
    for path in (p for p in folder.rglob("*") if p.is_file() and ".git" not in p.parts):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if (text := _significant(line)) and text in secret:
                found.append(f"{path.relative_to(folder)}:{number} is {secret[text]}: {text[:60]}")
    return found


def test_no_line_of_a_hidden_test_solution_or_grader_note_reaches_the_bundle(bundle):
    secret = hidden_lines(ROOT)
    assert len(secret) > 500, "the scan found almost nothing to look for: is it reading the right folders?"
    assert matches(bundle, secret) == []
    # the same scan over the grader's own exercises folder finds the hidden tests and the notes
    found = matches(ROOT / "exercises", secret)
    assert any("test_hidden.py" in f for f in found) and any("README.md" in f for f in found)


@pytest.fixture
def small_root(tmp_path) -> Path:
    root = tmp_path / "root"
    for rel in ("tensors/05_broadcast_bias", "autograd/10_autograd_basics"):
        shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
        shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    shutil.copyfile(ROOT / "constraints.txt", root / "constraints.txt")
    return root


def test_export_refuses_to_ship_a_hidden_test_and_writes_nothing(small_root, tmp_path, monkeypatch):
    # a copying bug that takes the hidden checks for the public ones
    monkeypatch.setattr(Exercise, "public_tests", property(lambda self: self.dir / "test_hidden.py"))
    out = tmp_path / "bundle"
    with pytest.raises(export.ExportError) as caught:
        export.export_bundle(out, root=small_root)
    message = str(caught.value)
    assert "05_broadcast_bias/test_hidden.py: a hidden file's name, never shipped" in message
    assert re.search(r"test_hidden\.py:\d+ holds exercises/\w+/\d\d_\w+/test_hidden\.py:\d+", message)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["root"]


def test_export_refuses_to_ship_notes_for_graders(small_root, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "candidate_readme", lambda path: path.read_text())
    with pytest.raises(export.ExportError, match=r"README\.md:\d+ holds exercises/.*/README\.md:\d+"):
        export.export_bundle(tmp_path / "bundle", root=small_root)


def test_export_of_chosen_exercises(small_root, tmp_path):
    bundle = export.export_bundle(tmp_path / "b", exercises=["10"], root=small_root)
    assert [ex.id for ex in bundle.exercises] == ["10_autograd_basics"]
    assert [p.name for p in (tmp_path / "b" / "exercises").glob("*/*")] == ["10_autograd_basics"]
    assert "grader check 10" in (tmp_path / "b" / "README.md").read_text()


def test_export_into_a_non_empty_folder_is_a_usage_error(small_root, tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    result = CliRunner().invoke(cli, ["export", str(tmp_path / "taken")], env={"GRADER_ROOT": str(small_root)})
    assert result.exit_code == 2
    assert result.output == f"Error: {tmp_path / 'taken'} exists and is not an empty folder: choose a new folder " \
                            f"for the bundle\n"


# --- the bundle in use ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def installed(bundle, tmp_path_factory) -> tuple[Path, Path]:
    """The bundle committed, cloned afresh and installed (editable, as its README says) in a new
    virtual environment. The dependencies (torch...) come from this environment through a .pth
    file, so that nothing is downloaded; the grader itself comes from the clone only."""
    work = tmp_path_factory.mktemp("candidate")
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
    return work / "clone", venv / "bin" / "grader"


def test_fresh_clone_has_every_bundle_file(bundle, installed):
    clone, _ = installed
    files = lambda folder: sorted(str(p.relative_to(folder)) for p in folder.rglob("*")  # noqa: E731
                                  if p.is_file() and ".git" not in p.relative_to(folder).parts)
    assert files(clone) == files(bundle)


def test_check_all_runs_in_the_installed_bundle(installed):
    clone, grader_bin = installed
    result = subprocess.run([str(grader_bin), "check", "--all"], cwd=clone, capture_output=True, text=True,
                            env=_env(COLUMNS="200"), timeout=300)
    assert result.returncode == 3, result.stdout + result.stderr  # the stubs fail their public checks
    lines = result.stdout.splitlines()
    # pytest's summary line; a debugging exercise's stub is a whole (wrong) program, which may pass
    # the public checks that are not about its bugs
    assert re.fullmatch(r"\d+ failed(, \d+ passed)? in [\d.]+ s", lines[-1]), lines[-1]
    headers = [line for line in lines[:-1] if not line.startswith(" ")]
    exercises = sorted(p for p in (clone / "exercises").glob("*/*") if p.is_dir())
    assert len(headers) == len(exercises)
    for header, folder in zip(headers, sorted(exercises, key=lambda p: p.name)):
        name = folder.name.split("_", 1)[1]
        passed = r"\d+" if folder.parent.name == "debugging" else "0"
        assert re.fullmatch(rf"{folder.name} \({folder.parent.name}/{folder.name}/{name}\.py\): {passed}/\d+ checks passed",
                            header), header
    marks = [line for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert marks and all(re.fullmatch(r"  [✗✓] test_\w+(\[[^\]]+\])? \((shape|dtype|value|grad|device|mode|api|state|"
                                      r"perf)\)", m) for m in marks), marks
    header = ""
    for line in lines[:-1]:  # a check passes only in a debugging exercise
        header = line if not line.startswith(" ") else header
        if line.startswith("  ✓"):
            assert "(debugging/" in header, (header, line)
    assert "raised NotImplementedError" in result.stdout
    # and the grader that ran is the bundle's, reading the bundle's exercises
    where = subprocess.run([str(grader_bin.parent / "python"), "-c", "import grader; print(grader.__file__)"],
                           cwd=clone.parent, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where) == clone / "grader" / "__init__.py"


@pytest.mark.parametrize("args,message", [
    (["grade", "exercises", "--runtime", "local"], "Candidates: run `grader check`. Interviewers: grade with the "
                                                   "grading image (`--runtime docker`)"),
    (["validate"], "Validate exercises in the grader's own repository"),
])
def test_hidden_checks_are_said_to_be_unavailable_in_the_bundle(installed, args, message):
    clone, grader_bin = installed
    result = subprocess.run([str(grader_bin), *args], cwd=clone, capture_output=True, text=True, env=_env(),
                            timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("Error: hidden checks are not available here: 01_tensor_factories")
    assert "has no test_hidden.py" in result.stderr or "have no test_hidden.py" in result.stderr
    assert message in result.stderr


# --- the pull-request workflows ----------------------------------------------------------------------

WORKFLOWS = ("submission.yml", "grade.yml")


def _workflow(bundle: Path, name: str) -> dict:
    return YAML(typ="safe").load((bundle / ".github" / "workflows" / name).read_text())


def test_workflows_pass_actionlint(bundle):
    actionlint = tool("actionlint")
    files = [str(bundle / ".github" / "workflows" / name) for name in WORKFLOWS]
    result = subprocess.run([actionlint, "-no-color", *files], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_script_injection(bundle, tmp_path):
    actionlint = tool("actionlint")
    text = (bundle / ".github" / "workflows" / "submission.yml").read_text()
    broken = text.replace("run: tar --create", "run: echo ${{ github.event.pull_request.title }}; tar --create")
    assert broken != text
    (tmp_path / "broken.yml").write_text(broken)
    result = subprocess.run([actionlint, "-no-color", str(tmp_path / "broken.yml")], capture_output=True, text=True)
    assert result.returncode == 1 and "potentially untrusted" in result.stdout


def test_workflows_match_github_workflow_schema(bundle, tmp_path):
    check = tool("check-jsonschema")
    files = [str(bundle / ".github" / "workflows" / name) for name in WORKFLOWS]
    result = subprocess.run([check, "--schemafile", str(SCHEMA), *files], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = (bundle / ".github" / "workflows" / "grade.yml").read_text().replace("runs-on:", "runs_on:")
    (tmp_path / "broken.yml").write_text(broken)
    result = subprocess.run([check, "--schemafile", str(SCHEMA), str(tmp_path / "broken.yml")], capture_output=True,
                            text=True)
    assert result.returncode == 1, result.stdout


def test_actions_are_pinned_by_commit(bundle):
    uses = [line.strip() for name in WORKFLOWS
            for line in (bundle / ".github" / "workflows" / name).read_text().splitlines() if "uses:" in line]
    assert len(uses) >= 5
    for line in uses:
        assert re.fullmatch(r"(- )?uses: [\w.-]+/[\w.-]+@[0-9a-f]{40} # v\d+(\.\d+)*", line), line


def test_pull_request_code_is_graded_only_by_the_trusted_workflow(bundle):
    submission, grade = _workflow(bundle, "submission.yml"), _workflow(bundle, "grade.yml")
    # step 1 runs the pull request's own workflow: no secrets, read-only, uploads data only
    assert set(submission["on"]) == {"pull_request"}
    assert submission["permissions"] == {"contents": "read"}
    text = (bundle / ".github" / "workflows" / "submission.yml").read_text()
    assert "secrets." not in text and "grader " not in text
    # step 2 runs from the default branch when step 1 completes, on pull requests only
    assert grade["on"] == {"workflow_run": {"workflows": ["submission"], "types": ["completed"]}}
    job = grade["jobs"]["grade"]
    assert "github.event.workflow_run.event == 'pull_request'" in job["if"]
    assert job["permissions"] == {"contents": "read", "actions": "read", "checks": "write"}
    steps = {step.get("name", step.get("uses", "")): step for step in job["steps"]}
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert "ref" not in checkout.get("with", {}), "the trusted workflow must not check out the pull request"
    script = steps["Grade with the hidden checks, in the grading image"]["run"]
    assert 'grader grade "$RUNNER_TEMP/submission/submission.tar.gz" --runtime docker --audience candidate' in script
    # the pull request sees the candidate's form only; the full form goes to the interviewer's artifact
    for option in ("--junit candidate/junit.xml", "--markdown candidate/summary.md", "--markdown-limit step",
                   "--full-reports reports"):
        assert option in script
    assert 'cat candidate/summary.md >> "$GITHUB_STEP_SUMMARY"' in script
    pull = steps["Pull the grading image"]["run"]
    assert pull.index("docker logout") < pull.index("docker tag") and "torch-grader:latest" in pull
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "reports/"
    report = next(s for s in job["steps"] if s.get("uses", "").startswith("mikepenz/action-junit-report@"))
    assert report["with"]["report_paths"] == "candidate/junit.xml"
    assert report["with"]["commit"] == "${{ github.event.workflow_run.head_sha }}"
