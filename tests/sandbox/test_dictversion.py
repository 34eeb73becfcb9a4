"""The dict version tag the tamper guard's fast path reads (grader.sandbox.dictversion)."""
from __future__ import annotations

import types

import pytest

from grader.sandbox import dictversion
from grader.sandbox.dictversion import version_reader


def test_the_tag_changes_with_its_dict_and_only_with_it():
    read = version_reader()
    assert read is not None, "CPython 3.11-3.13 keep ma_version_tag: the fast path should be live here"
    mine, other = {"a": 1}, {}
    before = read(id(mine))
    other["x"] = 1
    mine["a"] = 1  # the same object again: nothing changed
    assert read(id(mine)) == before
    for change in (lambda: mine.__setitem__("a", 2), lambda: mine.__setitem__("b", 3), lambda: mine.pop("b"),
                   lambda: mine.update(c=4), lambda: mine.clear()):
        seen = read(id(mine))
        change()
        assert read(id(mine)) != seen


def test_a_module_and_a_class_dict_count_their_changes():
    read = version_reader()
    module = types.ModuleType("m")
    klass = type("K", (), {"f": 1})
    mdict = vars(module)
    import gc

    kdict = gc.get_referents(klass.__dict__)[0]
    seen = read(id(mdict)), read(id(kdict))
    module.f = 1
    klass.f = 2
    assert read(id(mdict)) != seen[0] and read(id(kdict)) != seen[1]


def test_a_layout_that_does_not_behave_gives_no_reader(monkeypatch):
    monkeypatch.setattr(dictversion, "_TAG", dictversion._USED)  # reads ma_used: not a version
    assert version_reader() is None
    monkeypatch.setattr(dictversion, "_read", lambda address: 7)  # never changes
    monkeypatch.setattr(dictversion, "_TAG", 3 * dictversion._SIZE)
    assert version_reader() is None


@pytest.mark.parametrize("impl", ["pypy"])
def test_another_implementation_gives_no_reader(monkeypatch, impl):
    import sys

    monkeypatch.setattr(sys, "implementation", types.SimpleNamespace(name=impl))
    assert version_reader() is None
