"""`grader validate`: alternatives must score 100 %, trivial answers 0 (tests/data/mutate_root)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.trivial import TRIVIAL, trivial_source
from grader.validate import validate

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "mutate_root"
EX = Path("tensors") / "01_row_sums"


def test_trivial_sources_keep_signatures_and_docstrings():
    stub = (FIXTURE / "exercises" / EX / "row_sums.py").read_text()
    assert "def row_sums(x: torch.Tensor) -> torch.Tensor:\n    \"\"\"(N, F) -> (N,): the sum of each row.\"\"\"\n" \
           "    return x\n" in trivial_source(stub, "returns_input")
    assert "return torch.empty(0)" in trivial_source(stub, "returns_empty_tensor")
    mlp = "from torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n        raise NotImplementedError\n"
    assert "super().__init__()" in trivial_source(mlp, "returns_none")


@pytest.mark.slow
def test_validate_grades_alternatives_and_trivial_answers(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE, root)
    v = validate(["01"], root=root)[0]
    assert v.alternatives["loop"].score == v.alternatives["loop"].max_score
    assert sorted(v.trivial) == sorted(TRIVIAL)  # every trivial answer graded, none left out
    assert all(r.score == 0 for r in v.trivial.values()), {k: r.score for k, r in v.trivial.items()}
    assert v.ok, v.problems
    # a known mistake is graded on the checks it names only (first_column: "Caught by: test_values")
    mistakes = {m.name: m for m in v.mistakes}
    assert mistakes["first_column"].graded == ["test_values"], mistakes["first_column"]
    assert mistakes["no_sum"].graded == ["test_shape", "test_values"], mistakes["no_sum"]
    # a wrong alternative, and a check that any answer passes (two None results are "equal")
    (root / "solutions" / EX / "alternatives" / "cols.py").write_text(
        "def row_sums(x):\n    return x.sum(dim=0) * 2\n")
    hidden = root / "exercises" / EX / "test_hidden.py"
    hidden.write_text(hidden.read_text() + '''

@check("value")
def test_same_twice(sub):
    x = torch.ones(2, 2)
    assert sub.row_sums(x) == sub.row_sums(x) if sub.row_sums(x) is None else True
''')
    v = validate(["01"], root=root)[0]
    assert any(p.startswith("alternative cols.py scores") for p in v.problems), v.problems
    trivial = [p for p in v.problems if p.startswith("a trivial answer (every function returns None)")]
    assert trivial and "test_same_twice" in trivial[0], v.problems
    # an explanation accepts it
    (root / "solutions" / EX / "trivial_answers.toml").write_text(
        'returns_none = "test only"\nreturns_zero = "test only"\nreturns_empty_tensor = "test only"\n'
        'returns_input = "test only"\n')
    v = validate(["01"], root=root)[0]
    assert not [p for p in v.problems if p.startswith("a trivial answer")], v.problems


def test_validate_without_extras_grades_reference_stub_and_mistakes_only(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE, root)
    v = validate(["01"], root=root, extras=False)[0]
    assert v.alternatives == {} and v.trivial == {}, (v.alternatives, v.trivial)
    assert v.reference.score == v.reference.max_score and v.stub.score == 0
    assert {m.name for m in v.mistakes} == {"first_column", "no_sum"} and v.ok, v.problems


def test_validate_without_trivial_answers_still_grades_the_alternatives(tmp_path):
    """benchmarks/fair_verdicts.py --no-trivial: the valid answers and mistakes, not the trivial answers."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURE, root)
    v = validate(["01"], root=root, trivial=False)[0]
    assert v.trivial == {} and set(v.alternatives) == {"loop"}, (v.trivial, v.alternatives)
    assert v.alternatives["loop"].score == v.alternatives["loop"].max_score and v.ok, v.problems
