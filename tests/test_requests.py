"""Requests pickled for the worker: cloudpickle's submodule scan replaced by an indexed one that
must give the same answer (a submodule missing from a pickled probe would be an AttributeError in
the worker; an extra one, an import there)."""

from __future__ import annotations

import concurrent.futures  # noqa: F401  (a package whose submodule is reached by attribute)
import importlib
import sys
import types

import numpy as np
import torch
import torch.nn.functional as F

from grader.sandbox import requests


def _original():
    """cloudpickle's own function, from a fresh copy of its module (ours replaces it)."""
    spec = importlib.util.find_spec("cloudpickle.cloudpickle")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._find_imported_submodules


def _probe_nn(x):
    return torch.nn.functional.relu(x) + torch.linalg.norm(x), torch.distributions.Normal


def _probe_nested():
    return concurrent.futures.ThreadPoolExecutor, np.linalg.norm, torch.nn.utils.parametrize, F.relu


def _probe_plain(x):
    return x + 1


def test_indexed_scan_gives_cloudpickles_answer_in_its_order():
    import cloudpickle.cloudpickle as impl

    assert impl._find_imported_submodules is requests._find_imported_submodules
    original = _original()
    deps = [torch, F, np, concurrent, torch, sys, 3, "torch"]
    for probe in (_probe_nn, _probe_nested, _probe_plain):
        expected = original(probe.__code__, deps)
        assert requests._find_imported_submodules(probe.__code__, deps) == expected, probe.__name__
    assert [m.__name__ for m in original(_probe_nested.__code__, [concurrent])] == ["concurrent.futures"]


def test_index_follows_new_imports():
    name = "grader_test_pkg_for_requests"
    pkg = types.ModuleType(name)
    pkg.__package__ = name
    sub = types.ModuleType(f"{name}.deep")
    sys.modules[name] = pkg
    try:
        def probe():
            return pkg.deep

        assert requests._find_imported_submodules(probe.__code__, [pkg]) == []
        sys.modules[sub.__name__] = sub  # imported after the index was built
        assert requests._find_imported_submodules(probe.__code__, [pkg]) == [sub]
        assert requests._find_imported_submodules(probe.__code__, [pkg]) == _original()(probe.__code__, [pkg])
    finally:
        sys.modules.pop(sub.__name__, None)
        sys.modules.pop(name, None)


def test_a_pickled_probe_reaching_a_submodule_by_attribute_runs_after_unpickling():
    import pickle

    def local_probe(x):  # not importable by name: pickled by value, with its submodules
        return torch.nn.functional.relu(x) + torch.linalg.norm(x), torch.distributions.Normal

    blob = requests.dumps(local_probe)
    assert b"torch.distributions" in blob and b"local_probe" in blob
    probe = pickle.loads(blob)
    out, normal = probe(torch.tensor([-1.0, 2.0]))
    assert normal is torch.distributions.Normal
    assert torch.allclose(out, torch.tensor([0.0, 2.0]) + torch.linalg.norm(torch.tensor([-1.0, 2.0])))
