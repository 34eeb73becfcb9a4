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


def _same(u, v) -> bool:
    """What a check could observe of a tensor the worker received: everything torch pickles."""
    return (type(u) is type(v) and u.dtype == v.dtype and u.shape == v.shape and u.stride() == v.stride()
            and u.storage_offset() == v.storage_offset() and u.requires_grad == v.requires_grad
            and u.is_leaf == v.is_leaf and u._version == v._version and u.is_conj() == v.is_conj()
            and u.untyped_storage().nbytes() == v.untyped_storage().nbytes()
            and u.untyped_storage().resizable() == v.untyped_storage().resizable()
            and bytes(u.untyped_storage().tolist()) == bytes(v.untyped_storage().tolist())
            and getattr(u, "note", None) == getattr(v, "note", None))


def test_tensors_arrive_as_torchs_own_pickling_rebuilds_them():
    import pickle

    noted = torch.randn(2)
    noted.note = "kept"
    plain = [torch.randn(4, 8), torch.arange(6).reshape(2, 3), torch.tensor(3.5), torch.empty(0, 3),
             torch.zeros(2, 2, dtype=torch.bfloat16), torch.tensor([True, False]), torch.randn(3, 3, dtype=torch.complex64),
             torch.tensor([1, 255], dtype=torch.uint8), torch.tensor([float("nan"), float("inf"), -0.0], dtype=torch.float16)]
    other = [torch.randn(4, 4)[:, ::2], torch.randn(4, 4)[1:], torch.randn(2, 3).t(), torch.nn.Parameter(torch.randn(2)),
             torch.randn(2, requires_grad=True), torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
             torch.randn(3, dtype=torch.complex64).conj(), noted, torch.randn(3).to_sparse()]
    for tensor in plain + other:
        payload = requests.dumps(tensor)
        if any(tensor is p for p in plain):  # sent as its bytes (the others as torch pickles them)
            assert b"grader.sandbox.protocol" in payload, (tuple(tensor.shape), tensor.dtype)
        got, expected = pickle.loads(payload), pickle.loads(pickle.dumps(tensor))
        if tensor.layout == torch.sparse_coo:
            assert got.layout == torch.sparse_coo and torch.equal(got.to_dense(), expected.to_dense())
            continue
        assert _same(got, expected), (tuple(tensor.shape), tensor.dtype)
    shared = torch.randn(3)
    first, second = pickle.loads(requests.dumps((shared, shared)))
    assert first is second  # one tensor passed twice is one tensor in the worker, as before
