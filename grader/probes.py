"""Observations for probes that do not trust what the candidate can override.

Probes run in the worker, next to the candidate's objects, and a candidate's class may override
any method it inherits: a wrong MLP can answer `state_dict()`, `named_parameters()`,
`named_modules()`, `named_children()` or `load_state_dict()` with decoy layers. These helpers call
torch's own implementations (`nn.Module.state_dict(m)`, not `m.state_dict()`), walk what an
autograd graph really references, and measure memory as a delta around one call. They travel
with the probe by value (the judge registers this module for cloudpickle), so the candidate cannot
replace them in its process; what they call in torch is covered by the canaries.

Use them inside probes, or from checks through `grader.testing`'s wrappers:

    from grader import probes
    seen = sub.probe(lambda m: sorted(probes.state_dict(m)), model)   # keys from nn.Module's code
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

MAX_WALK = 100_000  # objects visited by `graph_holders`


def state_dict(module: Any) -> dict[str, torch.Tensor]:
    """`nn.Module.state_dict` (torch's, whatever the class overrides), values detached and cloned."""
    return {k: v.detach().clone() for k, v in nn.Module.state_dict(module).items()}


def named_parameters(module: Any) -> dict[str, torch.Tensor]:
    """`nn.Module.named_parameters` (torch's): name -> the parameter itself (grad kept)."""
    return dict(nn.Module.named_parameters(module))


def named_modules(module: Any) -> list[tuple[str, str]]:
    """`nn.Module.named_modules` (torch's): (name, class name) of every submodule, in order."""
    return [(name, type(m).__name__) for name, m in nn.Module.named_modules(module)]


def named_children(module: Any) -> list[tuple[str, str]]:
    """`nn.Module.named_children` (torch's): (name, class name) of the direct submodules."""
    return [(name, type(m).__name__) for name, m in nn.Module.named_children(module)]


def load_state_dict(module: Any, state: dict, strict: bool = True) -> tuple[list[str], list[str]]:
    """`nn.Module.load_state_dict` (torch's): (missing keys, unexpected keys)."""
    result = nn.Module.load_state_dict(module, state, strict=strict)
    return list(result.missing_keys), list(result.unexpected_keys)


def graph_holders(*roots: Any, limit: int = MAX_WALK) -> list[str]:
    """Paths of every tensor that still holds an autograd graph (`grad_fn` set), reachable from
    `roots` through module attributes (`vars()`), module-level globals (pass the candidate's
    module as a root), containers, and `nn.Module` buffers/parameters/submodules, read with the
    base implementations. Attributes are read from `__dict__`, never through `__getattr__` or
    properties the candidate wrote."""
    import types

    found: list[str] = []
    seen: set[int] = set()
    todo: list[tuple[str, Any]] = [(f"root{i}", r) for i, r in enumerate(roots)]
    while todo and len(seen) < limit:
        path, obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            if obj.grad_fn is not None:
                found.append(path)
            continue
        if isinstance(obj, (str, bytes, int, float, bool, type(None), type)) or callable(obj) and not isinstance(
                obj, nn.Module):
            continue
        if isinstance(obj, dict):
            todo += [(f"{path}[{k!r}]", v) for k, v in obj.items()]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo += [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
        else:
            attrs = object.__getattribute__(obj, "__dict__") if hasattr(type(obj), "__dict__") else {}
            if isinstance(obj, types.ModuleType) or isinstance(attrs, dict):
                todo += [(f"{path}.{k}", v) for k, v in dict(attrs).items()]
    return sorted(found)


def peak_rss_delta(fn: Callable, *args: Any, **kwargs: Any) -> tuple[int, Any]:
    """(bytes the process's peak resident size grew by during `fn(*args, **kwargs)`, its result).
    The kernel's high-water mark is reset first (/proc/self/clear_refs), so memory touched before
    the call (ballast at import) does not hide what the call itself materialises."""
    def high_water() -> int:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def resident() -> int:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE")

    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    before = resident()
    result = fn(*args, **kwargs)
    return max(0, high_water() - before), result
