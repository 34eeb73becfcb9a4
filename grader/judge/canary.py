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

MAX_TENSOR_LEAF = 64  # canary tensor leaves stay small whatever the real answer's size
MAX_LEAVES = 64
MAX_PROBE_TENSOR = 4096  # elements of the tensors the canaries put through torch.equal and friends
# dtypes canaries draw (a lying torch.equal that is honest only on small float32 tensors fails them);
# the second list is what numpy holds too (np.shares_memory), the third what allclose compares
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "uint8", "bool")
NUMPY_DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "uint8", "bool")
FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
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
        variant = _rng.randrange(6)
        return ("bool", variant, value, _tensor_params(variant)), value
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
        # the real answer's dtype and shape where they are small and plain, so that a canary's
        # answer looks like the real one
        dtype = str(template.dtype).removeprefix("torch.")
        dtype = dtype if dtype in DTYPES else "float32"
        shape = tuple(template.shape) if 0 < template.numel() <= MAX_TENSOR_LEAF else (_rng.randrange(1, MAX_TENSOR_LEAF),)
        n = 1
        for size in shape:
            n *= size
        low = 0 if dtype in ("uint8", "bool") else -50
        values = [_rng.randrange(low, 2 if dtype == "bool" else 50) for _ in range(n)]
        return ("tensor", values, dtype, shape), torch.tensor(values).to(getattr(torch, dtype)).reshape(shape)
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


def _tensor_params(variant: int) -> tuple[int, str, int, bool, int]:
    """(elements, dtype, columns, transposed, the element changed) of the tensor a boolean canary
    compares: sizes from 1 to MAX_PROBE_TENSOR, every dtype its operation takes, sometimes 2-d and
    transposed (not contiguous)."""
    choices = FLOAT_DTYPES if variant == 1 else NUMPY_DTYPES if variant == 4 else DTYPES
    dtype = _rng.choice(choices)
    cols = _rng.choice((1, 1, 2, 3, 8))
    rows = _rng.randrange(1, max(2, MAX_PROBE_TENSOR // cols if _rng.random() < 0.3 else 64))
    n = rows * cols
    return n, dtype, cols, cols > 1 and _rng.random() < 0.5, _rng.randrange(n)


def flipped(plan: Any) -> tuple[Any, Any]:
    """The twin of `plan`: every boolean leaf negated, the rest drawn afresh. A canary and its twin
    together give each boolean of the answer both values: a rewrite forcing one is always seen."""
    kind = plan[0]
    if kind == "bool":
        variant = _rng.randrange(6)
        return ("bool", variant, not plan[2], _tensor_params(variant)), not plan[2]
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


def gauntlet(plan: Any) -> tuple:
    """What a canary runs: first every boolean variant both ways, over tensors drawn afresh (every
    dtype and size, `_tensor_params`), then `plan`; any surprise corrupts the whole answer."""
    return ("gauntlet", plan, [_tensor_params(variant) for variant in range(6)])


def _sample(plan: Any) -> Any:
    return {"int": 0, "float": 0.0, "str": "x" * len(plan[-1]) if plan[0] == "str" else "",
            "tensor": torch.zeros(plan[3]).to(getattr(torch, plan[2])) if plan[0] == "tensor" else None}.get(plan[0])


def build(plan: Any) -> Any:
    """Runs in the worker (shipped by value): the answer for `plan`, computed through torch."""
    import numpy as np
    import torch as T

    kind = plan[0]
    if kind == "gauntlet":
        # First put the machinery to the test both ways (a function forced to one answer fails
        # one of the two); any surprise corrupts the whole answer, which the judge sees.
        params = plan[2]
        honest = all(build(("bool", variant, expect, params[variant])) is expect
                     for variant in range(6) for expect in (True, False))
        return build(plan[1]) if honest else ("corrupted", plan[1])
    if kind == "bool":
        variant, value = plan[1], plan[2]
        n, dtype, cols, transposed, at = plan[3]
        a = (T.arange(n, device="cpu") % 97).to(getattr(T, dtype)).reshape(-1, cols)
        if transposed:
            a = a.t()
        if variant in (0, 1):
            b = a.clone()
            if not value:  # one element differs, anywhere
                flat = b.reshape(-1) if b.is_contiguous() else b.t().reshape(-1)
                flat[at] = (~flat[at]) if dtype == "bool" else flat[at] + 1
                b = flat.reshape(b.shape) if b.is_contiguous() else flat.reshape(b.t().shape).t()
            return bool(T.equal(a, b)) if variant == 0 else bool(T.allclose(a, b))
        if variant == 2:
            before = a._version
            if not value:
                a.zero_()
            return a._version == before
        if variant == 3:
            b = a.view(-1) if value and a.is_contiguous() else a[:] if value else a.clone()
            return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        if variant == 4:
            arr = a.numpy()
            return bool(np.shares_memory(arr, (a if value else a.clone()).numpy()))
        layer = T.nn.Linear(cols, 2)
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
        values, dtype, shape = plan[1], plan[2], plan[3]
        return T.tensor(values, device="cpu").to(getattr(T, dtype)).reshape(shape)
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

    trial = gauntlet(plan)

    def observe(*args: Any, **kwargs: Any) -> Any:
        return build(trial)

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
    answer just received, and one before half of the time (so that the first probe of a
    check is no tell)."""
    return _rng.randrange(0, 2), 2
