"""Canary probes: known-answer probes mixed with the real ones, so that tampering shows.

A probe runs in the candidate's process, where everything can be rebound: torch itself (through
any alias), numpy, the worker's request handler, its codec. An in-process guard can be emptied by
the same code it guards. So the judge does not trust the worker to report tampering: around every
real probe it sends canaries, through the same path (`op: probe`, a function shipped by value
under the real probe's name, file and module, with the real probe's arguments), whose answers it
knows. Each canary rebuilds the *structure* of the real probe's answer (the last one seen for that
probe, or the one just received) with fresh random leaves computed through the machinery probes
rely on: `torch.equal`, `torch.allclose`, `Tensor._version`, storage sharing, `numpy.shares_memory`,
`nn.Module.state_dict`, `.item()`, the codec. A patched torch, a handler that rewrites answers
(all booleans True, a time forced low) or a forged codec then returns a wrong canary, and the
exercise is zeroed and flagged (`plugin`, `grading.build_exercise`).

What canaries do not stop: a submission that singles out the real probes by reading the code it
is asked to run (the canaries' code is public). Against that the remaining nets are the in-worker
guard, the static flags, and the authoring rule that a score should rest on data judged in the
judge or on measurements taken outside the worker (`sub.timed`).
"""

from __future__ import annotations

import os
import random
import types
from typing import Any

import torch

MAX_TENSOR_LEAF = 64  # canary tensors stay small whatever the real answer's size
MAX_LEAVES = 64
_templates: dict[tuple[str, str], Any] = {}  # last real answer's structure, per probe function
_rng = random.Random(os.urandom(16))


class CanaryMismatch(AssertionError):
    """A canary's answer differs from the one the judge knows: the worker is tampered with."""


# --- the plan: what a canary computes and the answer the judge expects --------------------------------

def plan_for(template: Any, budget: list[int] | None = None) -> tuple[Any, Any]:
    """(plan, expected) for an answer shaped like `template`: same containers, same dict keys,
    leaves of the same types with random values. The plan is plain data the canary interprets."""
    budget = budget if budget is not None else [MAX_LEAVES]
    budget[0] -= 1
    if budget[0] < 0:
        return ("none",), None
    if isinstance(template, bool):
        value = _rng.random() < 0.5
        return ("bool", _rng.randrange(6), value), value
    if isinstance(template, int):
        value = _rng.randrange(0, 1000)
        return ("int", _rng.randrange(2), value), value
    if isinstance(template, float):
        value = _rng.uniform(-100.0, 100.0)
        return ("float", value), value
    if isinstance(template, str):
        value = "".join(_rng.choice("abcdefghij ") for _ in range(min(len(template), 40)))
        return ("str", value), value
    if isinstance(template, torch.Tensor):
        n = _rng.randrange(1, MAX_TENSOR_LEAF)
        values = [_rng.randrange(-50, 50) for _ in range(n)]
        return ("tensor", values), torch.tensor(values, dtype=torch.float32)
    if isinstance(template, (list, tuple)) and type(template) in (list, tuple):
        pairs = [plan_for(v, budget) for v in template[:16]]
        kind = "list" if isinstance(template, list) else "tuple"
        expected = [e for _, e in pairs]
        return (kind, [p for p, _ in pairs]), (expected if kind == "list" else tuple(expected))
    if isinstance(template, dict) and type(template) is dict:
        keys = [k for k in template if isinstance(k, (str, int)) and not isinstance(k, bool)][:16]
        pairs = {k: plan_for(template[k], budget) for k in keys}
        return ("dict", [(k, p) for k, (p, _) in pairs.items()]), {k: e for k, (_, e) in pairs.items()}
    return ("none",), None


def flipped(plan: Any) -> tuple[Any, Any]:
    """The twin of `plan`: every boolean leaf negated, the rest drawn afresh. A canary and its twin
    together give each boolean of the answer both values: a rewrite forcing one is always seen."""
    kind = plan[0]
    if kind == "bool":
        return ("bool", _rng.randrange(6), not plan[2]), not plan[2]
    if kind in ("list", "tuple"):
        pairs = [flipped(p) for p in plan[1]]
        expected = [e for _, e in pairs]
        return (kind, [p for p, _ in pairs]), (expected if kind == "list" else tuple(expected))
    if kind == "dict":
        pairs = [(k, flipped(p)) for k, p in plan[1]]
        return ("dict", [(k, p) for k, (p, _) in pairs]), {k: e for k, (_, e) in pairs}
    if kind == "none":
        return plan, None
    return plan_for(_sample(plan))


def _sample(plan: Any) -> Any:
    return {"int": 0, "float": 0.0, "str": "x" * len(plan[-1]) if plan[0] == "str" else "",
            "tensor": torch.zeros(1)}.get(plan[0])


def build(plan: Any) -> Any:
    """Runs in the worker (shipped by value): the answer for `plan`, computed through torch."""
    import numpy as np
    import torch as T

    kind = plan[0]
    if kind in ("bool", "int", "float", "str", "tensor"):
        # Every leaf first puts the machinery to the test both ways (a function forced to one
        # answer fails one of the two); any surprise corrupts the leaf, which the judge sees.
        honest = all(build(("bool", variant, expect, "inner")) is expect
                     for variant in range(6) for expect in (True, False)) if len(plan) < 4 else True
        if not honest:
            return ("corrupted", plan)
    if kind == "bool":
        variant, value = plan[1], plan[2]
        a = T.arange(7, dtype=T.float32, device="cpu")
        if variant == 0:
            return bool(T.equal(a, a + (0.0 if value else 1.0)))
        if variant == 1:
            return bool(T.allclose(a, a + (0.0 if value else 1.0)))
        if variant == 2:
            before = a._version
            if not value:
                a.add_(1.0)
            return a._version == before
        if variant == 3:
            b = a.view(7, 1) if value else a.clone()
            return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        if variant == 4:
            arr = a.numpy()
            return bool(np.shares_memory(arr, (a if value else a.clone()).numpy()))
        layer = T.nn.Linear(2, 2)
        return len(T.nn.Module.state_dict(layer)) == (2 if value else 3)
    if kind == "int":
        if plan[1] == 0:
            return int(T.tensor(plan[2], dtype=T.int64, device="cpu").item())
        return int(T.zeros(plan[2], dtype=T.int64, device="cpu").numel())
    if kind == "float":
        return float(T.tensor(plan[1], dtype=T.float64, device="cpu").item())
    if kind == "str":
        return "".join(list(plan[1]))
    if kind == "tensor":
        return T.tensor(plan[1], dtype=T.float32, device="cpu")
    if kind == "list":
        return [build(p) for p in plan[1]]
    if kind == "tuple":
        return tuple(build(p) for p in plan[1])
    if kind == "dict":
        return {k: build(p) for k, p in plan[1]}
    return None


def same(answer: Any, expected: Any) -> bool:
    """Exact equality, computed in the judge (tensors compared with the judge's torch)."""
    if isinstance(expected, torch.Tensor):
        return (isinstance(answer, torch.Tensor) and answer.dtype == expected.dtype
                and answer.shape == expected.shape and bool(torch.equal(answer.cpu(), expected)))
    if isinstance(expected, bool) or expected is None:
        return answer is expected
    if isinstance(expected, (int, float, str)):
        return type(answer) is type(expected) and answer == expected
    if isinstance(expected, (list, tuple)):
        return (type(answer) is type(expected) and len(answer) == len(expected)
                and all(same(a, e) for a, e in zip(answer, expected)))
    if isinstance(expected, dict):
        return (type(answer) is dict and list(answer) == list(expected)
                and all(same(answer[k], e) for k, e in expected.items()))
    return False


# --- disguise: a canary travels as the real probe does ------------------------------------------------

def disguised(real: Any, plan: Any) -> Any:
    """A function that answers `plan` whatever its arguments, named, filed and moduled as `real`
    (so cloudpickle ships it by value exactly as it ships the real probe)."""

    def observe(*args: Any, **kwargs: Any) -> Any:
        return build(plan)

    code = getattr(real, "__code__", None)
    module = getattr(real, "__module__", None) or __name__
    names = {"co_filename": code.co_filename, "co_firstlineno": code.co_firstlineno} if code is not None else {}
    scope: dict[str, Any] = {"__builtins__": __builtins__}
    helper = types.FunctionType(_refiled(build.__code__, names), scope, "build")
    helper.__module__ = module
    scope["build"] = helper
    name = getattr(real, "__name__", "observe")
    fn = types.FunctionType(_refiled(observe.__code__, names).replace(
                                co_name=name, co_qualname=getattr(real, "__qualname__", name)),
                            scope, name, None, observe.__closure__)
    fn.__qualname__ = getattr(real, "__qualname__", name)
    fn.__module__ = module
    return fn


def _refiled(code: types.CodeType, names: dict) -> types.CodeType:
    """`code` and the code objects nested in it, as if written in the real probe's file."""
    if not names:
        return code
    consts = tuple(_refiled(c, names) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_consts=consts, **names)


def key(fn: Any) -> tuple[str, str]:
    code = getattr(fn, "__code__", None)
    return (getattr(code, "co_filename", ""), getattr(fn, "__qualname__", repr(fn)))


def remember(fn: Any, answer: Any) -> None:
    _templates[key(fn)] = answer


def template(fn: Any) -> Any:
    return _templates.get(key(fn), True)


def schedule() -> tuple[int, int]:
    """How many canaries go before and after the real probe: a twin pair after, mirroring the
    answer just received, and up to two before (sometimes none, so that the first probe of a
    check is no tell)."""
    return _rng.randrange(0, 3), 2
