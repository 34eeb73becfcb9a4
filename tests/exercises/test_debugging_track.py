"""The debugging track's rule in `grader validate` (grader.validate.debugging_problems), on a small
exercise root of its own: the stub is a complete program with three planted bugs, each mistake
fixes all but one. The stub may score above 0 (it passes a check that is no bug's), but it must
fail every bug's check; each mistake is graded on every check and must fail its own and no other."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.validate import validate

EX = Path("debugging") / "01_fix_me"

REFERENCE = '''def scale(x):
    """Twice x."""
    return 2 * x


def shift(x):
    """x plus one."""
    return x + 1


def total(xs):
    """The sum of every item of xs."""
    return sum(xs)
'''

BUGS = {"scale": ("return 2 * x", "return 3 * x"), "shift": ("return x + 1", "return x - 1"),
        "total": ("return sum(xs)", "return sum(xs[:-1])")}

CHECKS = '''from grader.testing import check


@check("value", weight=3)
def test_scale(sub):
    assert sub.scale(4) == 8


@check("value", weight=3)
def test_shift(sub):
    assert sub.shift(4) == 5


@check("value", weight=3)
def test_total(sub):
    assert sub.total([1, 2, 3]) == 6


@check("value", weight=0.5)
def test_returns_numbers(sub):
    assert all(isinstance(v, int) for v in (sub.scale(1), sub.shift(1), sub.total([1])))
'''

GUIDE = """# Interviewer's guide: 01 Fix me

## Time
About 5 minutes for a competent candidate.

## What it reveals
Reading three lines.

## Follow-up questions
1. **Which bug was hardest?** None.
2. **Why?** They are one line each.
3. **What next?** Nothing.

## Strong and weak signals
- Strong: reads the contract.

## Reading the score
One bug check per bug.

## What the hints give away
- Hint 1: the concept.
"""


def _program(keep: tuple[str, ...]) -> str:
    """The reference with the bugs in `keep` planted back."""
    source = REFERENCE
    for name in keep:
        good, bad = BUGS[name]
        source = source.replace(good, bad)
    return source


def _mistake(root: Path, name: str, caught_by: str, keep: tuple[str, ...]) -> None:
    path = root / "solutions" / EX / "mistakes" / f"{name}.py"
    path.write_text(f'"""Leaves the {", ".join(keep)} bug.\n\nCaught by: {caught_by}\n"""\n' + _program(keep))


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "root"
    ex, sol = root / "exercises" / EX, root / "solutions" / EX
    (sol / "mistakes").mkdir(parents=True)
    ex.mkdir(parents=True)
    (ex / "exercise.toml").write_text('title = "Fix me"\ntrack = "debugging"\ndifficulty = "easy"\ngpu = "no"\n'
                                      'sources = []\ntests = ["three one-line bugs"]\n')
    (ex / "README.md").write_text("# 01 Fix me\n")
    (ex / "hints.md").write_text("# Hints\n\n## Hint 1\nRead the contract.\n")
    (ex / "interviewer.md").write_text(GUIDE)
    (ex / "fix_me.py").write_text(_program(tuple(BUGS)))
    (ex / "test_public.py").write_text("from grader.testing import check\n")
    (ex / "test_hidden.py").write_text(CHECKS)
    (sol / "fix_me.py").write_text(REFERENCE)
    for name in BUGS:
        _mistake(root, f"leaves_{name}", f"test_{name}", (name,))
    return root


def _validate(root: Path):
    return validate(["01"], root=root, extras=False, jobs=1)[0]


@pytest.mark.slow
def test_a_sound_debugging_exercise_passes_with_a_stub_above_zero(root):
    v = _validate(root)
    assert v.ok, v.problems
    assert 0 < v.stub.score < v.stub.max_score                  # it passes test_returns_numbers, no bug's check
    assert all(m.graded == ["test_returns_numbers", "test_scale", "test_shift", "test_total"] for m in v.mistakes), \
        [m.graded for m in v.mistakes]                          # graded on every check, not only the one named


@pytest.mark.slow
def test_the_rule_reports_each_break_in_a_sentence(root):
    ex, mistakes = root / "exercises" / EX, root / "solutions" / EX / "mistakes"
    (ex / "fix_me.py").write_text(_program(("shift", "total")))                # the stub passes test_scale
    _mistake(root, "leaves_shift", "test_shift", ("shift", "total"))           # also caught by test_total
    _mistake(root, "leaves_two", "test_scale, test_total", ("scale", "total"))  # names two checks
    _mistake(root, "leaves_total_again", "test_total", ("total",))             # a second mistake for one check
    problems = _validate(root).problems
    expected = [
        "the stub passes test_scale, the check of the bug leaves_scale.py leaves",
        "mistake leaves_shift.py: also fails test_total; with one bug left only that bug's check (test_shift) may fail",
        "mistake leaves_two.py: names 2 checks (test_scale, test_total); in a debugging exercise each mistake leaves "
        "one bug",
        "mistakes leaves_total.py and leaves_total_again.py both name test_total",
    ]
    for start in expected:
        assert any(p.startswith(start) for p in problems), (start, problems)
    assert not any(p.startswith("stub scores") for p in problems), problems   # the catalogue's stub rule is off
    for name in ("leaves_two", "leaves_total_again"):
        (mistakes / f"{name}.py").unlink()
    (mistakes / "leaves_scale.py").unlink()
    assert any(p.startswith("2 mistake(s) in ") and "3 to 5 bugs" in p for p in _validate(root).problems)
