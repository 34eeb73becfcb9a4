"""Exercise content an interviewer can use (issue 46): stubs that state a contract and not a recipe
(docstrings of two sentences at most, no unused import), what each exercise tests named in
exercise.toml and kept from candidates, an interviewer's guide for every exercise, and interview
sessions (`grader list --sessions`, `grader export --session`, checked by `grader validate`)."""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import export
from grader.catalog import Catalog
from grader.cli import cli
from grader.content import content_problems, sentences, stub_problems
from grader.guides import SECTIONS, guide_problems, parse_guide
from grader.sessions import load_sessions, session_problems

ROOT = Path(__file__).resolve().parents[2]
CATALOG = Catalog.load(ROOT)
GUIDE = """# Interviewer's guide: 01 Row sums

## Time
About 10 minutes for a competent candidate. Reading and a few lines.

## What it reveals
Whether the candidate knows which dimension a reduction removes.

## Follow-up questions
1. **What does keepdim do?** It keeps the reduced dimension with size 1.
2. **What does sum over dim 0 give?** Column sums.
3. **And over a 0-d tensor?** The tensor itself.

## Strong and weak signals
- Strong: checks the shapes first.

## Reading the score
The value checks are the core.

## What the hints give away
- Hint 1: the concept only.
"""


# --- every exercise follows the rules ------------------------------------------------------------------

@pytest.mark.parametrize("exercise", [ex.id for ex in CATALOG.exercises])
def test_exercise_content_follows_the_rules(exercise):
    assert content_problems(CATALOG.get(exercise)) == []


@pytest.mark.parametrize("exercise", [ex.id for ex in CATALOG.exercises])
def test_interviewer_guide_has_every_section_and_the_minutes(exercise):
    ex = CATALOG.get(exercise)
    guide = parse_guide(ex.dir / "interviewer.md")
    assert [name for name in guide.sections if name in SECTIONS] == list(SECTIONS)
    assert guide.minutes is not None and 3 <= guide.minutes <= 60, guide.minutes
    assert 3 <= len(guide.follow_ups) <= 5
    assert ex.tests, f"{ex.id}: exercise.toml names nothing the exercise tests"


def test_sentences_are_counted_by_their_ends():
    assert sentences("Returns x (N, F) plus the bias.") == 1
    assert sentences("Returns `a.b` as float64. The input is untouched") == 2
    assert sentences("One. Two. Three.") == 3
    assert sentences("") == 0


def test_stub_rules_catch_a_recipe_and_unused_imports(tmp_path):
    stub = tmp_path / "s.py"
    stub.write_text('from __future__ import annotations\nimport os\nimport torch\nfrom torch import Tensor, nn\n\n\n'
                    'def f(x: Tensor, d: torch.dtype = torch.float32) -> Tensor:\n'
                    '    """Zero the grads. Scale the loss. Step through the scaler."""\n    raise NotImplementedError\n')
    problems = stub_problems(stub)
    assert any("f's docstring has 3 sentences" in p for p in problems), problems
    assert any("imports os, nn, which the stub does not use" in p for p in problems), problems
    stub.write_text('from __future__ import annotations\nfrom torch import Tensor\n\n\ndef f(x: "Tensor") -> None:\n'
                    '    """Returns nothing. The input is untouched."""\n')
    assert stub_problems(stub) == []


def test_guide_problems_name_what_is_missing(tmp_path):
    assert "missing" in guide_problems(tmp_path)[0]
    (tmp_path / "interviewer.md").write_text(GUIDE)
    assert guide_problems(tmp_path) == []
    (tmp_path / "interviewer.md").write_text(GUIDE.replace("About 10 minutes", "Ten minutes")
                                             .replace("## Reading the score\n", "## Scores\n")
                                             .replace("3. **And", "3a. **And"))
    problems = "\n".join(guide_problems(tmp_path))
    assert "no '## Reading the score' section" in problems
    assert "'## Time' must say 'About N minutes'" in problems
    assert "has 2 numbered questions; write 3 to 5" in problems


# --- the interviewer's guide is the interviewer's ------------------------------------------------------

def test_show_interviewer_prints_the_guide_and_what_the_exercise_tests():
    result = CliRunner().invoke(cli, ["show", "05", "--interviewer"], env={"GRADER_ROOT": str(ROOT)})
    assert result.exit_code == 0, result.output
    assert "## Follow-up questions" in result.output and "What it tests: " in result.output
    plain = CliRunner().invoke(cli, ["show", "05"], env={"GRADER_ROOT": str(ROOT)})
    assert "## Follow-up questions" not in plain.output and "What it tests" not in plain.output


@pytest.fixture
def small_root(tmp_path) -> Path:
    root = tmp_path / "root"
    for rel in ("tensors/05_broadcast_bias", "autograd/10_autograd_basics", "modules/18_custom_mlp_module"):
        shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
        shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    shutil.copyfile(ROOT / "constraints.txt", root / "constraints.txt")
    (root / "exercises" / "sessions.toml").write_text(
        '[screen]\ntitle = "Screen"\nminutes = 30\npurpose = "Basics."\nexercises = ["10", "05"]\n')
    return root


def test_export_leaves_out_the_guide_and_the_interviewer_only_fields(small_root, tmp_path):
    export.export_bundle(tmp_path / "b", root=small_root)
    assert not list((tmp_path / "b").rglob("interviewer.md"))
    for path in (tmp_path / "b" / "exercises").glob("*/*/exercise.toml"):
        data = tomllib.loads(path.read_text())
        source = tomllib.loads((small_root / path.relative_to(tmp_path / "b")).read_text())
        assert "tests" not in data and "required" not in data.get("api", {})
        assert {k: v for k, v in source.items() if k not in ("tests", "api")} == \
               {k: v for k, v in data.items() if k != "api"}, "a field candidates need was dropped"
        assert data.get("api", {}).get("forbidden") == source.get("api", {}).get("forbidden")


def test_export_refuses_a_line_of_an_interviewer_guide(small_root, tmp_path):
    # an author copies a model answer from the guide into a hint (hints ship to candidates)
    guide = small_root / "exercises" / "tensors" / "05_broadcast_bias" / "interviewer.md"
    line = next(t for t in guide.read_text().splitlines() if len(t) > 40 and t[0].isalpha())
    hints = small_root / "exercises" / "autograd" / "10_autograd_basics" / "hints.md"
    hints.write_text(hints.read_text() + f"\n{line}\n")
    with pytest.raises(export.ExportError, match=r"hints\.md:\d+ holds exercises/tensors/05_broadcast_bias/"
                                                 r"interviewer\.md:\d+"):
        export.export_bundle(tmp_path / "b", root=small_root)
    assert not (tmp_path / "b").exists()


def test_export_refuses_an_interviewer_only_toml_field(small_root, tmp_path, monkeypatch):
    toml = small_root / "exercises" / "tensors" / "05_broadcast_bias" / "exercise.toml"
    if "tests" not in tomllib.loads(toml.read_text()):
        toml.write_text(toml.read_text().replace("\nsources", '\ntests = ["rows vs columns"]\nsources', 1))
    monkeypatch.setattr(export, "candidate_toml", lambda path: path.read_text())  # a writer that forgets
    with pytest.raises(export.ExportError, match=r"exercise\.toml:\d+ holds exercises/.*/exercise\.toml:\d+"):
        export.export_bundle(tmp_path / "b", root=small_root)


# --- sessions ------------------------------------------------------------------------------------------

def test_the_catalogue_has_at_least_four_sound_sessions():
    sessions = load_sessions(ROOT)
    assert len(sessions) >= 4
    assert session_problems(CATALOG) == []
    for session in sessions.values():
        exercises = session.resolve(CATALOG)
        assert len({ex.id for ex in exercises}) == len(exercises), f"{session.name} names an exercise twice"
        planned = sum(parse_guide(ex.dir / "interviewer.md").minutes for ex in exercises)
        assert planned <= session.minutes, f"{session.name}: its exercises need {planned} of {session.minutes} min"


def test_list_sessions_and_export_one(small_root, tmp_path, monkeypatch):
    monkeypatch.chdir(small_root)  # the tree you are in comes before GRADER_ROOT
    env = {"GRADER_ROOT": str(small_root)}
    listed = CliRunner().invoke(cli, ["list", "--sessions"], env=env)
    assert listed.exit_code == 0, listed.output
    assert "screen: Screen, 30 minutes" in listed.output
    assert listed.output.index("10_autograd_basics") < listed.output.index("05_broadcast_bias")
    out = tmp_path / "bundle"
    result = CliRunner().invoke(cli, ["export", str(out), "--session", "screen"], env=env)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "exercises").glob("*/*")) == ["05_broadcast_bias", "10_autograd_basics"]
    readme = (out / "README.md").read_text()
    assert "**Screen: 30 minutes.** Basics." in readme
    assert readme.index("then 05") > readme.index("order: 10")
    assert not list(out.rglob("interviewer.md"))


def test_export_of_an_unknown_session_is_a_usage_error_listing_the_sessions(small_root, tmp_path, monkeypatch):
    monkeypatch.chdir(small_root)
    result = CliRunner().invoke(cli, ["export", str(tmp_path / "b"), "--session", "nope"],
                                env={"GRADER_ROOT": str(small_root)})
    assert result.exit_code == 2
    assert "unknown session 'nope' (sessions: screen)" in result.output
    assert not (tmp_path / "b").exists()


def test_a_session_naming_a_missing_exercise_or_one_without_a_guide_is_a_problem(small_root):
    (small_root / "exercises" / "sessions.toml").write_text(
        '[screen]\ntitle = "Screen"\nminutes = 30\npurpose = "Basics."\nexercises = ["99", "18"]\n')
    (small_root / "exercises" / "modules" / "18_custom_mlp_module" / "interviewer.md").unlink()
    problems = session_problems(Catalog.load(small_root))
    assert len(problems) == 2
    assert "names exercise '99', which cannot be used" in problems[0]
    assert "includes 18_custom_mlp_module, which has no interviewer's guide" in problems[1]


def test_validate_exits_3_on_a_session_problem(small_root, monkeypatch):
    monkeypatch.chdir(small_root)
    (small_root / "exercises" / "sessions.toml").write_text(
        '[screen]\ntitle = "Screen"\nminutes = 30\npurpose = "Basics."\nexercises = ["05", "99"]\n')
    result = CliRunner().invoke(cli, ["validate", "05", "--jobs", "1"], env={"GRADER_ROOT": str(small_root)})
    assert result.exit_code == 3, result.output
    assert "sessions: session 'screen' names exercise '99'" in result.output
    assert "05_broadcast_bias  10/10" in result.output  # the exercise itself is fine


def test_interviewer_html_report_shows_the_guides_follow_ups_and_the_candidates_does_not(tmp_path):
    out = tmp_path / "candidate.html"
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "examples" / "sample_submission"), "-e", "05",
                                      "--runtime", "local", "--audience", "candidate", "--html", str(out),
                                      "--full-reports", str(tmp_path / "full"), "-q"],
                                env={"GRADER_ROOT": str(ROOT)})
    assert result.exit_code == 0, result.output
    interviewer = (tmp_path / "full" / "candidate.html").read_text()
    follow_ups = parse_guide(CATALOG.get("05").dir / "interviewer.md").follow_ups
    assert 'class="follow-ups" data-exercise="05_broadcast_bias"' in interviewer
    assert interviewer.count("<li>", interviewer.index('class="follow-ups"')) >= len(follow_ups)
    assert "follow-up" not in out.read_text().lower()
