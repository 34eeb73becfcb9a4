"""Authoring (issue 44): `grader new` scaffolds an exercise that validate reports as incomplete, and
exercise packs (a folder with pack.toml, exercises/ and solutions/) work through the whole path:
scaffold, fill in, validate, grade (local; docker where a daemon and the image are), export, build
the image. examples/example_pack is the pack the path is walked with."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.catalog import Catalog
from grader.cli import cli
from grader.errors import UsageError
from grader.pack_manifest import PACKS_ENV, PackError, load_pack

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "example_pack"
EX = "tensors/01_masked_mean"
PACK_TOML = 'name = "{name}"\nversion = "0.1.0"\ntorch = "{torch}"\n'


def invoke(*args: str, cwd: Path | None = None):
    """The CLI in this process (cwd: where the user runs it), its exit code and output."""
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def new_pack(tmp: Path, name: str = "acme", torch: str = "2.13.0") -> Path:
    pack = tmp / name
    pack.mkdir()
    (pack / "pack.toml").write_text(PACK_TOML.format(name=name, torch=torch))
    return pack


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(autouse=True)
def no_packs_from_outside(monkeypatch):
    monkeypatch.delenv(PACKS_ENV, raising=False)


# --- grader new -------------------------------------------------------------------------------------

def test_new_scaffolds_an_exercise_that_validate_reports_incomplete(tmp_path):
    pack = new_pack(tmp_path)
    result = invoke("new", "masked_mean", "--root", str(pack), "--track", "tensors")
    assert result.exit_code == 0, result.output
    ex_dir, sol_dir = pack / "exercises" / EX, pack / "solutions" / EX
    assert sorted(p.name for p in ex_dir.iterdir()) == sorted(
        ["README.md", "exercise.toml", "masked_mean.py", "test_public.py", "test_hidden.py", "hints.md",
         "interviewer.md"])
    assert (sol_dir / "masked_mean.py").is_file()
    assert (sol_dir / "mistakes").is_dir() and (sol_dir / "alternatives").is_dir()
    readme = (ex_dir / "README.md").read_text()
    sections = [line for line in readme.splitlines() if line.startswith("## ")]
    assert sections == ["## The question", "## Your task", "## Worked example", "## Things to think about",
                        "## Notes for graders"]
    hidden = (ex_dir / "test_hidden.py").read_text()
    for helper in ('@check("value"', "sub.probe(", "sub.static.", "sub.measure_memory(", "sub.cpu_timed("):
        assert helper in hidden, f"the scaffold's hidden checks show no example of {helper}"
    assert "tests = []" in (ex_dir / "exercise.toml").read_text()
    assert f"--pack {pack}" in result.output  # how to validate it from here

    listed = invoke("list", "--pack", str(pack))
    assert listed.exit_code == 0 and "01_masked_mean" in listed.output and "pack acme 0.1.0" in listed.output

    checked = invoke("validate", "masked_mean", "--pack", str(pack))
    assert checked.exit_code == 3, checked.output
    out = " ".join(checked.output.split())  # the table wraps long lines
    assert "Traceback" not in checked.output
    for gap in ("README.md:5: still holds the scaffold's placeholder", "masked_mean.py:7: still holds",
                "test_hidden.py:2: still holds", "hints.md:4: still holds", "interviewer.md:4: still holds",
                "no 'tests' list", "must say 'About N minutes'", "has 0 numbered questions",
                "reference scores 0/20", "only 0 mistake(s)", "0/1 exercises valid"):
        assert gap in out, f"validate does not say {gap!r}:\n{checked.output}"


def test_new_numbers_after_the_last_exercise_and_defaults_the_track(tmp_path):
    from grader.scaffold import next_number, scaffold

    pack = new_pack(tmp_path)
    first = scaffold("alpha", "modules", pack)
    second = scaffold("beta", root=pack)
    assert (first.id, second.id, second.track) == ("01_alpha", "02_beta", "modules")
    assert next_number(ROOT) > max(ex.number for ex in Catalog.load(ROOT, packs=[]).exercises)
    fresh = new_pack(tmp_path, name="fresh")  # pack.toml only: run inside it, `grader new` finds it
    result = invoke("new", "first_one", "--track", "basics", cwd=fresh)
    assert result.exit_code == 0, result.output
    assert (fresh / "exercises" / "basics" / "01_first_one" / "first_one.py").is_file()
    assert "--pack" not in result.output  # validated from there as it is


@pytest.mark.parametrize("case", ["existing", "not_a_root", "bundle", "bad_name", "numbered_name", "missing_root"])
def test_new_refuses_and_writes_nothing(tmp_path, case):
    pack = new_pack(tmp_path)
    invoke("new", "masked_mean", "--root", str(pack), "--track", "tensors")
    args = {"existing": ["masked_mean", "--root", str(pack), "--track", "modules"],
            "not_a_root": ["other", "--root", str(tmp_path)],
            "bundle": ["other", "--root", str(tmp_path / "bundle")],
            "bad_name": ["Masked-Mean", "--root", str(pack)],
            "numbered_name": ["02_other", "--root", str(pack)],
            "missing_root": ["other", "--root", str(tmp_path / "nowhere")]}[case]
    if case == "bundle":  # exercises/ without solutions/: a candidate bundle
        (tmp_path / "bundle" / "exercises").mkdir(parents=True)
    before = tree(tmp_path)
    result = invoke("new", *args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and "Traceback" not in result.output
    assert tree(tmp_path) == before, "a refused `grader new` wrote something"


# --- packs: bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["no_toml", "bad_toml", "missing_field", "unknown_field", "bad_name",
                                  "colliding_ids", "colliding_numbers", "not_a_folder"])
def test_bad_packs_are_usage_errors_naming_the_file_and_the_fix(tmp_path, case):
    pack = tmp_path / "p"
    shutil.copytree(EXAMPLE, pack)
    toml = pack / "pack.toml"
    expect = str(toml)
    if case == "no_toml":
        toml.unlink()
        expect, fix = str(toml), "write one"
    elif case == "bad_toml":
        toml.write_text('name = "acme\n')
        fix = "invalid TOML"
    elif case == "missing_field":
        toml.write_text('name = "acme"\nversion = "1"\n')
        fix = "missing required field 'torch'"
    elif case == "unknown_field":
        toml.write_text(PACK_TOML.format(name="acme", torch="2.13.0") + 'colour = "red"\n')
        fix = "unknown field 'colour'"
    elif case == "bad_name":
        toml.write_text(PACK_TOML.format(name="Acme Corp", torch="2.13.0"))
        fix = "use lowercase letters"
    elif case == "colliding_ids":
        shutil.copytree(pack / "exercises" / EX, pack / "exercises" / "modules" / "01_masked_mean")
        fix = "exercise id 01_masked_mean is used by exercises/modules/01_masked_mean and exercises/tensors/01_masked_mean"
    elif case == "colliding_numbers":
        shutil.copytree(pack / "exercises" / EX, pack / "exercises" / "tensors" / "01_other_mean")
        fix = "exercise number 01 is used by"
    else:
        shutil.rmtree(pack)
        pack.write_text("")
        expect, fix = str(pack), "a pack is a folder"
    with pytest.raises(PackError) as err:
        Catalog.load(ROOT, packs=[pack])
    assert expect in str(err.value) and fix in str(err.value)
    result = invoke("list", "--pack", str(pack))
    assert result.exit_code == 2 and fix in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_packs_from_the_environment(monkeypatch):
    monkeypatch.setenv(PACKS_ENV, os.pathsep.join([str(EXAMPLE), ""]))
    catalog = Catalog.load(ROOT)
    ex = catalog.get("masked_mean")
    assert ex.pack is not None and ex.pack.label == "example 1.0.0" and ex.pack.torch == "2.13.0"
    assert ex.solutions_dir == EXAMPLE / "solutions" / EX
    assert catalog.get("example/01") is ex and catalog.select(["example"]) == [ex]
    with pytest.raises(UsageError, match="ambiguous: it matches 01_"):
        catalog.get("01")  # the catalogue's 01 and the pack's 01


def test_watch_and_show_find_a_pack_exercise():
    from grader.practice.session import RerunJob

    catalog = Catalog.load(ROOT, packs=[EXAMPLE])
    rerun = RerunJob.build(catalog, catalog.get("masked_mean"))
    assert rerun.candidate.path == EXAMPLE / "exercises" / EX / "masked_mean.py"
    shutil.rmtree(rerun.folder, ignore_errors=True)
    shown = invoke("show", "masked_mean", "--pack", str(EXAMPLE))
    assert shown.exit_code == 0 and "grader check example/01_masked_mean" in shown.output
    guide = invoke("show", "example/01", "--interviewer", "--pack", str(EXAMPLE))
    assert guide.exit_code == 0 and "## Follow-up questions" in guide.output


def test_ids_that_collide_are_namespaced_by_pack(tmp_path):
    pack = new_pack(tmp_path)
    for base in ("exercises", "solutions"):
        shutil.copytree(ROOT / base / "tensors" / "05_broadcast_bias", pack / base / "tensors" / "05_broadcast_bias")
    catalog = Catalog.load(ROOT, packs=[pack, EXAMPLE])
    ids = [ex.id for ex in catalog.exercises if ex.pack is not None]
    assert ids == ["acme/05_broadcast_bias", "01_masked_mean"]  # 01_masked_mean collides with nothing
    assert catalog.get("05").pack is None and catalog.get("broadcast_bias").pack is None
    assert catalog.get("acme/05").id == catalog.get("acme/broadcast_bias").id == "acme/05_broadcast_bias"
    # the pack alone (run inside it): its own ids, no prefix
    alone = Catalog.load(pack)
    assert [ex.id for ex in alone.exercises] == ["05_broadcast_bias"] and alone.pack.name == "acme"


# --- the whole path ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def authored(tmp_path_factory) -> Path:
    """A pack made as an author makes one: pack.toml, `grader new`, then the files filled in (here
    with those of examples/example_pack)."""
    base = tmp_path_factory.mktemp("authored")
    pack = new_pack(base, name="team", torch="2.13.0")
    result = invoke("new", "masked_mean", "--root", str(pack), "--track", "tensors")
    assert result.exit_code == 0, result.output
    for folder in ("exercises", "solutions"):
        shutil.copytree(EXAMPLE / folder / EX, pack / folder / EX, dirs_exist_ok=True)
    for readme in ("mistakes/README.md", "alternatives/README.md"):
        assert (pack / "solutions" / EX / readme).is_file()  # the scaffold's notes are kept
    return pack


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("subs")
    out = {}
    for name, source in (("right", EXAMPLE / "solutions" / EX / "masked_mean.py"),
                         ("wrong", EXAMPLE / "solutions" / EX / "mistakes" / "divides_by_length.py")):
        target = base / name / EX / "masked_mean.py"
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
        out[name] = base / name
    return out


@pytest.mark.slow
def test_filled_in_pack_validates(authored):
    result = invoke("validate", "masked_mean", "--pack", str(authored))
    assert result.exit_code == 0, result.output
    assert "1/1 exercises valid" in result.output


@pytest.mark.slow
def test_example_pack_validates_inside_the_pack():
    result = invoke("validate", "masked_mean", cwd=EXAMPLE)  # the pack alone, as its author runs it
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_grade_against_a_pack_locally(authored, submissions, tmp_path):
    reports = {kind: tmp_path / name for kind, name in (("json", "r.json"), ("markdown", "r.md"), ("junit", "r.xml"),
                                                       ("gradescope", "g.json"), ("html", "r.html"))}
    args = [f"--{kind}={path}" for kind, path in reports.items()]
    result = invoke("grade", str(submissions["wrong"]), "--pack", str(authored), "--runtime", "local", *args)
    assert result.exit_code == 0, result.output
    report = json.loads(reports["json"].read_text())
    (ex,) = report["exercises"]
    assert (ex["id"], ex["pack"], ex["pack_torch"]) == ("01_masked_mean", "team 0.1.0", "2.13.0")
    assert 0 < ex["score"] < ex["max_score"]
    failed = {c["name"].split("[")[0] for c in ex["checks"] if c["outcome"] == "failed"}
    assert "test_matches_reference" in failed and "test_input_untouched" in failed  # the values differ
    assert report["pack_notes"] == ["exercise pack team 0.1.0: 01_masked_mean"]
    for kind, path in reports.items():  # every report says where the exercise came from
        assert "team 0.1.0" in path.read_text(), f"the {kind} report does not name the pack"
    assert "exercise pack team 0.1.0" in " ".join(result.output.split())
    right = invoke("grade", str(submissions["right"]), "--pack", str(authored), "--runtime", "local",
                   "--fail-under", "100")
    assert right.exit_code == 0, right.output


@pytest.mark.slow
def test_check_and_similarity_work_on_pack_exercises(authored, submissions, tmp_path):
    checked = invoke("check", "masked_mean", cwd=authored)  # the stub, in place, inside the pack: fails
    assert checked.exit_code == 3 and "0/2 checks passed" in checked.output
    with pytest.raises(UsageError, match="ambiguous"):
        Catalog.load(ROOT, packs=[authored]).get("01")
    checked = invoke("check", "masked_mean", "--pack", str(authored), "--path", str(submissions["right"]))
    assert checked.exit_code == 0, checked.output
    copy = shutil.copytree(submissions["right"], tmp_path / "copy")
    similar = invoke("similarity", str(submissions["right"]), str(copy), "--pack", str(authored))
    assert similar.exit_code == 0 and "01_masked_mean" in similar.output and "1 pair(s)" in similar.output


@pytest.mark.slow
def test_export_from_a_pack_carries_no_hidden_content(authored, tmp_path):
    out = tmp_path / "bundle"
    result = invoke("export", str(out), "--exercises", "masked_mean,05", "--pack", str(authored))
    assert result.exit_code == 0, result.output
    files = tree(out)
    assert f"exercises/{EX}/masked_mean.py" in files and "exercises/tensors/05_broadcast_bias/broadcast_bias.py" in files
    assert not [f for f in files if Path(f).name in ("test_hidden.py", "interviewer.md") or "solutions" in f]
    shipped = "\n".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    for secret in ("kept = x.masked_fill(~mask, 0)", "def test_empty_slice_is_zero", "Strong: divides by the mask",
                   "Dividing by the dimension's length is the classic slip"):
        assert secret not in shipped
    assert "tests =" not in (out / "exercises" / EX / "exercise.toml").read_text()
    # the bundle grades its own public checks with no pack at hand
    checked = invoke("check", "masked_mean", cwd=out)
    assert checked.exit_code == 3 and "0/2 checks passed" in checked.output


def test_export_scan_covers_pack_solutions(tmp_path):
    pack = tmp_path / "leaky"
    shutil.copytree(EXAMPLE, pack)
    hints = pack / "exercises" / EX / "hints.md"
    hints.write_text(hints.read_text() + "\n    kept = x.masked_fill(~mask, 0)\n")  # a line of the reference
    out = tmp_path / "bundle"
    result = invoke("export", str(out), "--exercises", "masked_mean", "--pack", str(pack))
    assert result.exit_code == 1, result.output
    assert f"leaky/solutions/{EX}/masked_mean.py" in result.output and not out.exists()


@pytest.mark.slow
def test_mutate_works_on_a_pack_exercise(tmp_path):
    result = invoke("mutate", "masked_mean", "--pack", str(EXAMPLE), "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 0, result.output
    assert "mutation score 100.0 %" in result.output


# --- torch versions ---------------------------------------------------------------------------------

def test_a_pack_validated_with_another_torch_warns_in_every_report(tmp_path):
    import dataclasses
    import io

    from rich.console import Console

    from grader.reports import gradescope, html, json_report, junit, markdown, terminal
    from grader.results import Environment, ExerciseResult, GradeRun, SubmissionResult, score_checks

    row = {"name": "test_x", "kind": "value", "weight": 1.0, "visibility": "hidden", "outcome": "passed",
           "message": "", "duration_s": 0.0, "file": "exercises/tensors/01_x/test_hidden.py", "line": 3}
    ex = ExerciseResult(id="01_x", title="X", track="tensors", difficulty="easy", points=10, file="x.py",
                        checks=tuple(score_checks(10, [row])), pack="old 1.0", pack_torch="1.13.1")
    run = GradeRun(submissions=(SubmissionResult("sub", "/sub", (ex,)),),
                   environment=Environment(runtime="local", torch="2.13.0+cpu"), started_at="t", duration_s=1.0,
                   tool_version="0")
    buf = io.StringIO()
    terminal.render(run, Console(file=buf, width=200, color_system=None))
    outputs = {"terminal": buf.getvalue(), "json": json_report.render(run), "markdown": markdown.render(run),
               "junit": junit.render(run), "gradescope": gradescope.render(run), "html": html.render(run)}
    for kind, text in outputs.items():
        assert "validated with torch 1.13.1" in text and "2.13.0+cpu" in text, f"no torch warning in the {kind} report"
    same = dataclasses.replace(run, submissions=(SubmissionResult("sub", "/sub", (
        dataclasses.replace(ex, pack_torch="2.13"),)),))
    assert "validated with torch" not in json_report.render(same)  # 2.13 covers 2.13.0+cpu
    built_in = dataclasses.replace(run, submissions=(SubmissionResult("sub", "/sub", (
        dataclasses.replace(ex, pack="", pack_torch=""),)),))
    assert "pack" not in json.loads(json_report.render(built_in))["exercises"][0]  # golden reports unchanged


def test_list_warns_about_another_torch(tmp_path):
    pack = tmp_path / "old"
    shutil.copytree(EXAMPLE, pack)
    (pack / "pack.toml").write_text(PACK_TOML.format(name="old", torch="1.13.1"))
    listed = invoke("list", "--pack", str(pack))
    assert listed.exit_code == 0 and "pack old 0.1.0 was validated with torch 1.13.1" in listed.output


# --- the grading image and Ray ---------------------------------------------------------------------

def test_docker_runtime_reads_pack_checks_from_the_image():
    from grader.runtimes.base import Candidate, JudgeJob
    from grader.runtimes.docker import DockerRuntime

    catalog = Catalog.load(ROOT, packs=[EXAMPLE])
    job = JudgeJob(root=catalog.root, exercises=[catalog.get("masked_mean"), catalog.get("05")], candidates=[])
    runtime = object.__new__(DockerRuntime)  # no daemon needed to map paths
    _, _, grader_map = runtime._path_maps(job, Candidate("sub", {}, None))
    spec = job.spec("/out/r.jsonl", "/scratch", grader_map=grader_map)
    dirs = {ex["id"]: (ex["dir"], ex["root"]) for ex in spec["exercises"]}
    assert dirs["01_masked_mean"] == (f"/opt/grader/packs/example/exercises/{EX}", "/opt/grader/packs/example")
    assert dirs["05_broadcast_bias"] == ("/opt/grader/exercises/tensors/05_broadcast_bias", "/opt/grader")


def test_image_labels_say_which_packs_it_holds(tmp_path):
    from grader.image import SOURCES_LABEL, image_freshness, sources_hash
    from grader.packs import copy_into_image, image_packs, pack_labels

    pack = load_pack(EXAMPLE)
    fresh = {SOURCES_LABEL: sources_hash(ROOT)}
    assert image_freshness(fresh, ROOT, packs=[]) is None
    assert "holds no pack 'example'" in image_freshness(fresh, ROOT, packs=[pack])
    assert image_freshness({**fresh, **pack_labels([pack])}, ROOT, packs=[pack]) is None
    assert "another state of pack example" in image_freshness({**fresh, "torch-grader.pack.example": "0"}, ROOT,
                                                              packs=[pack])
    root, packs = image_packs(EXAMPLE, None)  # `grader image build` run inside a pack: the grader's checkout
    assert root == ROOT and packs == [pack]
    copy_into_image(packs, tmp_path, log=lambda msg: None)
    copied = tree(tmp_path / "packs" / "example")
    assert "pack.toml" in copied and f"solutions/{EX}/masked_mean.py" in copied and f"exercises/{EX}/test_hidden.py" in copied


def test_ray_ships_packs_to_its_nodes(tmp_path, monkeypatch):
    from grader.packs import catalog_on_node, shipped

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    driver = Catalog.load(ROOT, packs=[EXAMPLE])
    node = catalog_on_node(shipped(driver))
    ex = node.get("masked_mean")
    assert ex.pack.name == "example" and ex.dir.is_relative_to(tmp_path) and ex.hidden_tests.is_file()
    assert catalog_on_node(shipped(driver)).get("masked_mean").dir == ex.dir  # unpacked once per content
    alone = catalog_on_node(shipped(Catalog.load(EXAMPLE)))  # the driver worked inside the pack
    assert [e.id for e in alone.exercises] == ["01_masked_mean"]


@pytest.mark.ray
@pytest.mark.slow
def test_grade_against_a_pack_on_ray(submissions):
    pytest.importorskip("ray", reason="pip install 'torch-grader[ray]'")
    from grader.grading import GradeOptions, grade_with
    from grader.sandbox.limits import Limits
    from tests.support.ray_cluster import LocalRayCluster

    cluster = LocalRayCluster(head_cpus=1)
    try:
        os.environ[PACKS_ENV] = str(EXAMPLE)
        run = grade_with([submissions["right"], submissions["wrong"]],
                         GradeOptions(runtime="ray", limits=Limits(memory_bytes=1 << 30), address=cluster.address,
                                      node_runtime="local", handle_signals=False))
    finally:
        os.environ.pop(PACKS_ENV, None)
        import ray

        ray.shutdown()
        cluster.stop()
    scores = [sub.percent for sub in run.submissions]
    assert scores[0] == 100.0 and 0 < scores[1] < 100, [s.error for s in run.submissions]
    assert run.submissions[0].exercises[0].pack == "example 1.0.0"


def _docker_image(tag: str) -> str | None:
    """Why docker cannot be used here (None when it can)."""
    if shutil.which("docker") is None:
        return "no docker client here"
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker daemon answers (`docker info` failed)"
    if subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode != 0:
        return f"no grading image {tag} (`grader image build`)"
    return None


@pytest.mark.docker
@pytest.mark.slow
def test_build_the_image_with_a_pack_and_grade_in_docker(submissions):
    why = _docker_image("torch-grader:latest")
    if why:
        pytest.skip(why)
    base = os.environ.get("GRADER_TEST_BASE_IMAGE", "torch-grader-base:offline")
    if subprocess.run(["docker", "image", "inspect", base], capture_output=True).returncode != 0:
        pytest.skip(f"no base image {base} to build on offline (docker/build-offline-base.sh)")
    tag = "torch-grader:pack-test"
    result = subprocess.run([sys.executable, "-m", "grader", "image", "build", "--pack", str(EXAMPLE),
                             "--base-image", base, "--tag", tag], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    from grader.errors import StaleImage
    from grader.grading import grade
    from grader.pack_manifest import use_packs
    from grader.runtimes.docker import DockerRuntime

    try:
        use_packs([EXAMPLE])
        run = grade([submissions["wrong"]], runtime="docker", runtime_options={"image": tag, "gpus": "none"})
        with pytest.raises(StaleImage, match="holds no pack 'example'"):  # an image built without the pack
            DockerRuntime(image="torch-grader:latest", gpus="none").check_image(ROOT)
    finally:
        os.environ.pop(PACKS_ENV, None)
    (ex,) = run.submissions[0].exercises
    assert run.environment.runtime == "docker" and ex.pack == "example 1.0.0"
    assert 0 < ex.score < ex.max_score, [(c.name, c.outcome, c.message[:200]) for c in ex.checks]
    assert f"exercises/{EX}/test_hidden.py" in {c.file for c in ex.checks}
