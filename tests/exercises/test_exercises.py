"""Every exercise in the catalog is proven right: `grader validate` over all of them (reference
100 %, stub 0, every mistake caught by the checks it names), the exercises shared out over one
judge session per core (`grader.parallel`)."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.catalog import Catalog
from grader.validate import validate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def validations():
    return {v.exercise.id: v for v in validate(root=ROOT)}


def test_catalog_loads_without_problems():
    catalog = Catalog.load(ROOT)
    assert catalog.problems == {}
    assert len(catalog.exercises) >= 17


@pytest.mark.parametrize("exercise", [ex.id for ex in Catalog.load(ROOT).exercises])
def test_exercise_validates(validations, exercise):
    v = validations[exercise]
    assert v.ok, "\n".join(v.problems)
    assert v.reference.score == v.reference.max_score > 0
    # a debugging exercise's stub is a whole, wrong program: it may pass the checks that are not
    # about its bugs (validate's own rule, grader.validate.debugging_problems, fails every bug's)
    assert v.stub.score == 0 or v.exercise.track == "debugging"
    assert len(v.mistakes) >= 2

