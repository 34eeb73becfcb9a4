"""Fair, spreadsheet-friendly batches for the interviewer (issue 45): every submission of a batch
graded on the same exercises, no total across candidates, a gradebook CSV, one candidate-facing
report per submission, archives reported by their own path, interrupted runs that say so; and the
bad inputs of that issue this side owns (1, 5, 6, 9, 10, 11, 14), each on its exit code, its
message and what is left on disk."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from grader.cli import cli
from grader.gradebook import file_stems, same_exercises
from grader.reports import csv_report, gradescope, html, json_report, junit, markdown, terminal
from grader.results import CheckResult, Environment, ExerciseResult, Flag, GradeRun, SubmissionResult
from grader.resultstore import Graded

ROOT = Path(__file__).resolve().parents[2]
PILOTS = ["tensors/05_broadcast_bias", "autograd/10_autograd_basics"]
SOL05 = ROOT / "solutions" / PILOTS[0] / "broadcast_bias.py"
SOL10 = ROOT / "solutions" / PILOTS[1] / "autograd_basics.py"
STUB05 = ROOT / "exercises" / PILOTS[0] / "broadcast_bias.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("root")
    for rel in PILOTS:
        shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
        shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    return root


def run(root: Path, *args: str, cwd: Path | None = None):
    with contextlib.chdir(cwd or root):
        return CliRunner().invoke(cli, [str(a) for a in args], env={"GRADER_ROOT": str(root), "COLUMNS": "120"},
                                  prog_name="grader")


def no_traceback(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


# --- one real batch: alice (a zip: 05 and 10), bob (05 only), =carol (05's stub) ---------------------

@pytest.fixture(scope="module")
def batch(root, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("batch")
    subs = base / "subs"
    subs.mkdir()
    with zipfile.ZipFile(subs / "alice.zip", "w") as zf:
        zf.write(SOL05, "alice/tensors/05_broadcast_bias/broadcast_bias.py")
        zf.write(SOL10, "alice/autograd/10_autograd_basics/autograd_basics.py")
    (subs / "bob").mkdir()
    shutil.copy(SOL05, subs / "bob" / "broadcast_bias.py")
    (subs / "=carol").mkdir()
    shutil.copy(STUB05, subs / "=carol" / "broadcast_bias.py")
    out = base / "out"
    result = run(root, "grade", subs / "alice.zip", subs / "bob", subs / "=carol", "--runtime", "local",
                 "--memory-gb", "1", "--jobs", "2", "-q", "--json", out / "r.json", "--html", out / "r.html",
                 "--markdown", out / "r.md", "--csv", out / "g.csv", "--csv-kinds", "--feedback-dir", out / "fb",
                 cwd=base)
    no_traceback(result)
    assert result.exit_code == 0, result.output
    return {"subs": subs, "out": out, "result": result, "report": json.loads((out / "r.json").read_text())}


def test_a_batch_grades_every_submission_on_the_exercises_found_in_any(batch):
    """bob skipped 10: he ranked above a candidate who did both (17.86/20, 89 % over 24.29/30);
    now 10 scores 0 of its points for him, with a note, over the same checks as alice's."""
    report = batch["report"]
    by = {(e["submission"], e["id"]): e for e in report["exercises"]}
    assert {e["id"] for e in report["exercises"] if e["submission"] == "bob"} == {"05_broadcast_bias",
                                                                                  "10_autograd_basics"}
    bob10, alice10 = by[("bob", "10_autograd_basics")], by[("alice", "10_autograd_basics")]
    assert bob10["score"] == 0 and bob10["max_score"] == alice10["max_score"] > 0
    assert "not in this submission" in bob10["problem"]
    assert [c["name"] for c in bob10["checks"]] == [c["name"] for c in alice10["checks"]]
    subs = {s["name"]: s for s in report["submissions"]}
    assert subs["alice"]["percent"] == 100.0 and subs["bob"]["percent"] == 50.0
    assert subs["alice"]["max_score"] == subs["bob"]["max_score"] == subs["=carol"]["max_score"]


def test_a_batch_report_has_no_total_across_candidates(batch):
    report = batch["report"]
    assert report["schema_version"] == 2
    assert not {"score", "max_score", "percent"} & set(report)


def test_bad_input_14_an_archive_is_reported_by_its_own_path(batch):
    """The JSON named /tmp/grader-submission-*/alice, a folder deleted once grading was done."""
    subs = {s["name"]: s for s in batch["report"]["submissions"]}
    assert subs["alice"]["path"] == str((batch["subs"] / "alice.zip").resolve())
    for path in batch["out"].rglob("*"):
        if path.is_file():
            assert "grader-submission-" not in path.read_text(), path


def test_the_gradebook_csv_opens_in_a_spreadsheet(batch):
    rows = list(csv.DictReader(io.StringIO((batch["out"] / "g.csv").read_text(encoding="utf-8"))))
    assert [r["submission"] for r in rows] == ["alice", "bob", "'=carol"]  # no formula
    header = list(rows[0])
    assert header[:4] == ["submission", "path", "05_broadcast_bias", "05_broadcast_bias shape"]
    assert header[-6:] == ["score", "max_score", "percent", "flags", "tampering", "status"]
    assert "10_autograd_basics" in header and "10_autograd_basics grad" in header  # --csv-kinds
    bob = rows[1]
    assert (bob["05_broadcast_bias"], bob["10_autograd_basics"], bob["percent"]) == ("10", "0", "50")
    assert bob["status"] == "graded" and rows[0]["path"].endswith("alice.zip")
    kinds = [h for h in header if h.startswith("05_broadcast_bias ")]
    assert sum(float(rows[0][h]) for h in kinds) == pytest.approx(float(rows[0]["05_broadcast_bias"]), abs=0.05)


def test_feedback_dir_holds_one_candidate_report_per_submission(batch):
    folder = batch["out"] / "fb"
    assert sorted(p.name for p in folder.iterdir()) == ["_carol.html", "_carol.md", "alice.html", "alice.md",
                                                       "bob.html", "bob.md"]
    hidden = {c["name"].split("[")[0] for e in batch["report"]["exercises"] for c in e["checks"]
              if c["visibility"] == "hidden"}
    assert hidden
    for path in folder.iterdir():
        text = path.read_text()
        assert not [name for name in hidden if name in text], path  # hidden checks only in aggregate
        assert "follow-up questions" not in text  # the interviewer's guide stays with the interviewer
    bob = (folder / "bob.md").read_text()
    assert bob.startswith("## torch-grader: 10 / 20 (50 %)")
    assert "hidden value checks" in bob and "alice" not in bob  # his own report, nobody else's
    assert "not in this submission" in bob


def test_the_html_report_puts_scores_first_and_links_back(batch):
    page = (batch["out"] / "r.html").read_text()
    assert page.index('id="overview"') < page.index('class="submission"') < page.index('id="environment"')
    assert '<details id="environment">' in page  # collapsed
    assert page.count('href="#overview"') == 3  # from each submission back to the overview


def test_a_single_submission_keeps_what_it_holds(root, batch, tmp_path):
    result = run(root, "grade", batch["subs"] / "bob", "--runtime", "local", "--memory-gb", "1", "-q",
                 "--json", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert [e["id"] for e in report["exercises"]] == ["05_broadcast_bias"]
    assert (report["score"], report["max_score"], report["percent"]) == (10, 10, 100.0)


# --- the rules, without a judge ---------------------------------------------------------------------

def _check(name: str, outcome: str = "passed", visibility: str = "public", kind: str = "value",
           points: float = 5.0, message: str = "") -> CheckResult:
    return CheckResult(name=name, kind=kind, weight=1.0, visibility=visibility, outcome=outcome, message=message,
                       duration_s=0.1, file="exercises/t/05_x/test_public.py", line=3,
                       score=points if outcome == "passed" else 0.0, max_score=points)


def _exercise(ex_id: str, *checks: CheckResult, flags: tuple = ()) -> ExerciseResult:
    return ExerciseResult(id=ex_id, title=ex_id, track="t", difficulty="easy", points=10.0, file=f"{ex_id}.py",
                          checks=checks, flags=flags)


ENV = Environment(runtime="local", python="3.11", torch="2.13.0")


def _run(*subs: SubmissionResult, **extra) -> GradeRun:
    return GradeRun(submissions=subs, environment=ENV, started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                    tool_version="0.1.0", extra=extra)


def test_same_exercises_keeps_not_run_checks_out_of_the_total():
    gpu = _check("test_cuda", outcome="not_run", kind="device")
    alice = SubmissionResult("alice", "/a", (_exercise("05_x", _check("test_a"), _check("test_b"), gpu),
                                             _exercise("10_y", _check("test_c", points=10.0))))
    bob = SubmissionResult("bob", "/b", (_exercise("10_y", _check("test_c", "failed", points=10.0)),))
    broken = SubmissionResult("eve", "/e.zip", (), error="not a readable zip archive")
    out = same_exercises([alice, bob, broken], order=["05_x", "10_y"])
    assert out[0] is alice
    assert [e.id for e in out[1].exercises] == ["05_x", "10_y"]  # the catalogue's order
    missing = out[1].exercises[0]
    assert (missing.score, missing.max_score, missing.not_run) == (0, 10, 1)
    assert [c.outcome for c in missing.checks] == ["failed", "failed", "not_run"]
    assert out[2].max_score == 20 and "could not be opened" in out[2].exercises[0].problem
    assert same_exercises([bob]) == [bob]


def test_cells_that_would_be_formulas_are_escaped():
    assert [csv_report.spreadsheet_safe(v) for v in ("=1+1", "+cmd", "-2", "@SUM(A1)", "\tx", "alice", "")] == [
        "'=1+1", "'+cmd", "'-2", "'@SUM(A1)", "'\tx", "alice", ""]
    sub = SubmissionResult('=HYPERLINK("http://x")', "-x.zip", (_exercise("05_x", _check("test_a")),),
                           error=None)
    rows = list(csv.reader(io.StringIO(csv_report.render(_run(sub)))))
    assert rows[1][:2] == ['\'=HYPERLINK("http://x")', "'-x.zip"]


def test_feedback_file_names_are_safe_and_unique():
    assert file_stems(["alice", "Alice", "alice", "../x", ".hidden", "a b/c", "CON", "", "-rf"]) == [
        "alice", "Alice-2", "alice-3", "_x", "hidden", "a_b_c", "_CON", "submission", "rf"]


def test_tampering_is_kept_apart_from_notes_for_the_interviewer():
    flags = (Flag(0, "tampering detected: torch.add was replaced (during test_a)"),
             Flag(2, "IPython syntax dropped: %matplotlib inline", cell=3))
    sub = SubmissionResult("alice", "/a", (_exercise("05_x", _check("test_a"), flags=flags),))
    page = html.render(_run(sub))
    assert "Tampering flags" not in page
    tampering = page[page.index("<h3>Tampering detected</h3>"):]
    notes = page[page.index("<h3>Notes for the interviewer</h3>"):]
    assert "torch.add was replaced" in tampering.split("</ul>")[0] and "%matplotlib" not in tampering.split("</ul>")[0]
    assert "%matplotlib inline" in notes.split("</ul>")[0]
    summary = markdown.render(_run(sub))
    assert "**Tampering detected:**" in summary and "**Notes for the interviewer:**" in summary
    assert "Flags for the interviewer" not in summary
    buf = io.StringIO()
    terminal.render(_run(sub), Console(file=buf, width=120, color_system=None))
    assert "tampering 05_x line 0: tampering detected" in buf.getvalue()
    assert "note 05_x cell 3, line 2: IPython syntax dropped" in buf.getvalue()


def test_a_single_submission_page_has_no_back_link():
    sub = SubmissionResult("alice", "/a", (_exercise("05_x", _check("test_a")),))
    page = html.render(_run(sub))
    assert 'href="#overview"' not in page and 'id="total"' in page
    assert page.index('class="submission"') < page.index('<details id="environment">')


def test_the_mutation_page_looks_like_the_other_pages():
    from grader.catalog import Catalog
    from grader.mutate.engine import ExerciseMutation, MutantResult, MutationRun
    from grader.mutate.mutants import Mutant
    from grader.mutate.report import render_html

    ex = Catalog.load(ROOT).get("05")
    mutant = Mutant("m1", "swap", 7, "a + b", "b + a", "", "--- a\n+++ b\n-<a + b>\n+b + a\n")
    page = render_html(MutationRun([ExerciseMutation(ex, [MutantResult(mutant, "survived", 10, 10,
                                                                       passed=["test_a"])])]))
    assert f"<style>{html.CSS}</style>" in page and f'content="{html.CSP}"' in page
    assert '<html lang="en">' in page and 'class="check"' in page and "Survivor" in page
    assert "&lt;a + b&gt;" in page and "<a + b>" not in page


# --- interrupted runs (bad input 1) -----------------------------------------------------------------

def _interrupt_after(monkeypatch, finished: int):
    """grade_one that grades the first `finished` submissions, then is stopped as by Ctrl-C."""
    import grader.grading.executors

    def fake(item, ctx, runtime, run_kwargs=None, cores=1):
        if item.index >= finished:
            ctx.stop.set()
            return None
        ex = _exercise("05_broadcast_bias", _check("test_a"), _check("test_b", "failed", message="wrong [x]"))
        return Graded(SubmissionResult(item.label, str(item.path), (ex,)),
                      environment={"torch": "2.13.0", "gpus": [], "protections": [], "notes": []})

    monkeypatch.setattr(grader.grading.executors, "grade_one", fake)


def test_bad_input_1_an_interrupted_batch_says_so_in_every_report(root, tmp_path, monkeypatch):
    _interrupt_after(monkeypatch, 1)
    subs = []
    for name in ("ann", "ben", "cat"):
        (tmp_path / name).mkdir()
        subs.append(tmp_path / name)
    out = tmp_path / "out"
    kinds = {"json": "r.json", "html": "r.html", "markdown": "r.md", "junit": "j.xml", "gradescope": "g.json",
             "csv": "g.csv"}
    args = [a for kind, name in kinds.items() for a in (f"--{kind}", out / name)]
    result = run(root, "grade", *subs, "--runtime", "local", "--jobs", "1", *args)
    no_traceback(result)
    assert result.exit_code == 130, result.output
    assert "interrupted: 1 of 3 submissions graded" in result.output
    assert "Interrupted: 1 of 3 submissions graded; not graded: ben, cat" in result.output  # the table
    report = json.loads((out / "r.json").read_text())
    assert report["partial"]["graded"] == 1 and report["partial"]["total"] == 3
    assert [s["name"] for s in report["partial"]["not_graded"]] == ["ben", "cat"]
    assert not {"score", "percent"} & set(report)  # one of three graded: still no total
    for kind, name in kinds.items():
        text = (out / name).read_text()
        assert "1 of 3" in text or kind in ("csv", "junit", "json"), kind  # json: report["partial"]
        assert "ben" in text and "cat" in text, kind
    assert "not graded: the run was interrupted" in (out / "g.csv").read_text()
    assert 'name="not graded (interrupted)"' in (out / "j.xml").read_text()


def test_a_run_where_nothing_finished_prints_no_unknown_torch(root, tmp_path, monkeypatch):
    _interrupt_after(monkeypatch, 0)
    (tmp_path / "ann").mkdir()
    (tmp_path / "ben").mkdir()
    result = run(root, "grade", tmp_path / "ann", tmp_path / "ben", "--runtime", "local", "--markdown",
                 tmp_path / "r.md")
    assert result.exit_code == 130, result.output
    assert "torch ?" not in result.output and "Nothing was graded (local runtime)." in result.output
    summary = (tmp_path / "r.md").read_text()
    assert summary.startswith("## torch-grader: 0 of 2 submissions graded (interrupted)")
    assert "torch ?" not in summary


def test_partial_runs_in_the_renderers():
    sub = SubmissionResult("ann", "/a", (_exercise("05_x", _check("test_a")),))
    partial = {"graded": 1, "total": 2, "not_graded": [{"name": "ben", "path": "/subs/ben.zip"}]}
    shown = _run(sub, partial=partial)
    assert "interrupted: 1 of 2 submissions graded; not graded: ben" in json.loads(gradescope.render(shown))["output"]
    assert 'id="partial"' in html.render(shown) and "/subs/ben.zip" in html.render(shown)
    assert json.loads(json_report.render(shown))["partial"] == partial
    assert "ben" in junit.render(shown)


# --- the other bad inputs ---------------------------------------------------------------------------

def test_bad_input_9_require_gpu_without_one_fails_before_grading(root, tmp_path):
    from grader.gpus import visible_gpus

    if visible_gpus():
        pytest.skip("this machine has a GPU")
    shutil.copy(STUB05, tmp_path / "broadcast_bias.py")
    result = run(root, "grade", tmp_path / "broadcast_bias.py", "--runtime", "local", "--require-gpu",
                 "--json", tmp_path / "out" / "r.json")
    no_traceback(result)
    assert result.exit_code == 1, result.output
    assert "Error: --require-gpu: this machine has no GPU" in result.output
    assert "nothing was graded" in result.output and "broadcast_bias:" not in result.output  # no table
    assert not (tmp_path / "out" / "r.json").exists()


def test_bad_input_10_full_reports_without_a_report_is_refused(root, tmp_path):
    result = run(root, "grade", STUB05, "--runtime", "local", "--full-reports", tmp_path / "full")
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert "--full-reports" in result.output and "add one (--json" in result.output
    assert not (tmp_path / "full").exists()


def test_bad_input_11_a_repeated_report_option_is_refused(root, tmp_path):
    result = run(root, "grade", STUB05, "--runtime", "local", "--json", tmp_path / "a.json", "--json",
                 tmp_path / "b.json")
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert "--json" in result.output and "given 2 times" in result.output
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()


def test_feedback_dir_inside_a_submission_is_refused(root, tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(STUB05, tmp_path / "sub" / "broadcast_bias.py")
    result = run(root, "grade", tmp_path / "sub", "--runtime", "local", "--feedback-dir", tmp_path / "sub" / "fb")
    assert result.exit_code == 2 and "inside the submission" in result.output
    assert not (tmp_path / "sub" / "fb").exists()


def test_the_local_runtime_warning_comes_before_grading(root, tmp_path, monkeypatch):
    import grader.grading.executors
    import grader.runtimes.docker

    monkeypatch.setattr(grader.runtimes.docker, "daemon_and_image_available", lambda image=None: None)

    def fake(item, ctx, runtime, run_kwargs=None, cores=1):
        import click

        click.echo("GRADING STARTS", err=True)
        return Graded(SubmissionResult(item.label, str(item.path), (_exercise("05_x", _check("test_a")),)))

    monkeypatch.setattr(grader.grading.executors, "grade_one", fake)
    result = run(root, "grade", STUB05, "--runtime", "auto", "-q")
    assert result.exit_code == 0, result.output
    warning = "Warning: no Docker daemon with the grading image here: grading on the local runtime"
    assert result.output.count(warning) == 1
    assert result.output.index(warning) < result.output.index("GRADING STARTS")


def test_markdown_to_a_terminal_has_no_html_entities(root, monkeypatch):
    import grader.cli
    import grader.grading.executors

    def fake(item, ctx, runtime, run_kwargs=None, cores=1):
        ex = _exercise("05_x", _check("test_a", "failed", message="state_dict has no ['layers.0'] * 2"))
        return Graded(SubmissionResult("sample_submission", str(item.path), (ex,)))

    monkeypatch.setattr(grader.grading.executors, "grade_one", fake)
    monkeypatch.setattr(grader.cli, "_stdout_is_terminal", lambda: True)
    result = run(root, "grade", STUB05, "--runtime", "local", "--markdown", "-")
    assert result.exit_code == 0, result.output
    assert "sample_submission" in result.output and "state_dict has no ['layers.0'] * 2" in result.output
    assert "&#" not in result.output and "<details>" not in result.output


def test_a_missing_custom_image_names_its_tag(monkeypatch):
    import docker
    import grader.runtimes.docker as docker_runtime
    from grader.errors import RuntimeUnavailable
    from grader.runtimes import resolve_runtime

    monkeypatch.setattr(docker_runtime, "daemon_and_image_available", lambda image=None: None)
    _, warning = resolve_runtime("auto", "my/grader:dev")
    assert "`grader image build --tag my/grader:dev`" in warning
    assert "`grader image build`)" in resolve_runtime("auto", None)[1]

    class Images:
        def get(self, name):
            raise docker.errors.ImageNotFound(name)

    monkeypatch.setattr(docker_runtime, "docker_client", lambda: type("Client", (), {"images": Images()})())
    with pytest.raises(RuntimeUnavailable, match=re.escape("`grader image build --tag my/grader:dev`")):
        docker_runtime.DockerRuntime(image="my/grader:dev")


def test_grade_help_keeps_its_examples_on_their_own_lines(root):
    result = run(root, "grade", "--help")
    lines = result.output.splitlines()
    examples = lines[lines.index("  Examples:") + 1:]
    examples = examples[:examples.index("")]
    assert len(examples) >= 3 and all(line.startswith("    grader grade ") for line in examples), examples
    assert "--csv FILE" in result.output and "--feedback-dir DIRECTORY" in result.output
    assert "found in any submission" in " ".join(result.output.split())
    reference = (ROOT / "docs" / "cli.md").read_text()
    assert "\n    grader grade subs/* --feedback-dir feedback/\n" in reference  # the generated reference


# --- similarity (bad inputs 5 and 6, and the reference solution) ------------------------------------

@pytest.fixture
def similar(root, tmp_path) -> dict:
    pytest.importorskip("copydetect", reason="the similarity extra is not installed")
    for name, source in (("ann", SOL05), ("bob", SOL05), ("cat", STUB05)):
        (tmp_path / name).mkdir()
        shutil.copy(source, tmp_path / name / "broadcast_bias.py")
    (tmp_path / "corrupt.zip").write_bytes(b"PK\x03\x04 not a zip")
    (tmp_path / "binary").mkdir()
    (tmp_path / "binary" / "broadcast_bias.py").write_bytes(b"\x00\x01\xff\xfe" * 100)
    return {"dir": tmp_path}


def test_bad_input_5_similarity_with_a_missing_path(root, similar):
    d = similar["dir"]
    result = run(root, "similarity", d / "ann", d / "cat", d / "nowhere", "--json", d / "s.json")
    no_traceback(result)
    assert result.exit_code == 0, result.output  # as grade: the others are compared
    assert "Error: nowhere: not compared: submission not found" in result.output
    assert "among 2 submissions (1 could not be compared)" in result.output
    data = json.loads((d / "s.json").read_text())
    assert data["compared"] == ["ann", "cat"] and data["not_compared"][0]["submission"] == "nowhere"
    alone = run(root, "similarity", d / "ann", d / "nowhere")
    assert alone.exit_code == 2 and "1 of 2 submissions could be compared" in alone.output


def test_bad_input_6_similarity_with_a_corrupt_zip_and_a_binary_file(root, similar):
    d = similar["dir"]
    result = run(root, "similarity", d / "ann", d / "cat", d / "corrupt.zip", d / "binary", "--json",
                 d / "s.json", "--html", d / "s.html")
    no_traceback(result)
    assert result.exit_code == 0, result.output
    assert "among 2 submissions (2 could not be compared)" in result.output
    assert "Error: corrupt: not compared: " in result.output and "not a readable zip archive" in result.output
    assert "Error: binary: not compared: " in result.output and "is not Python source" in result.output
    data = json.loads((d / "s.json").read_text())
    assert {n["submission"] for n in data["not_compared"]} == {"corrupt", "binary"}
    page = (d / "s.html").read_text()
    assert 'id="not-compared"' in page and 'data-submission="binary"' in page


def test_similarity_says_when_an_answer_matches_the_reference_solution(root, similar):
    d = similar["dir"]
    result = run(root, "similarity", d / "ann", d / "cat", "--json", d / "s.json", "--html", d / "s.html")
    assert result.exit_code == 0, result.output
    assert re.search(r"05_broadcast_bias\s+ann\s+the reference solution\s+1\.00", result.output), result.output
    assert "1 answer(s) match the exercise's reference solution" in result.output
    data = json.loads((d / "s.json").read_text())
    assert [(p["a"], p["b"]) for p in data["reference_matches"]] == [("ann", "reference solution")]
    assert data["pairs"] == [] and data["exercises"][0]["files"] == 2
    assert "Matching the reference solution" in (d / "s.html").read_text()


def test_no_reference_solution_no_comparison(root, similar, tmp_path_factory):
    """A candidate bundle has no solutions/: nothing is said about a reference."""
    bundle = tmp_path_factory.mktemp("bundle")
    shutil.copytree(root / "exercises", bundle / "exercises")
    d = similar["dir"]
    result = run(bundle, "similarity", d / "ann", d / "bob", "--json", d / "s.json")
    assert result.exit_code == 0, result.output
    assert json.loads((d / "s.json").read_text())["reference_matches"] == []
    assert "reference" not in result.output

