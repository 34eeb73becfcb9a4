"""What an object really holds and is: the autograd graphs reachable from it, its own attributes,
its class's qualified name, each read without a `__getattr__`, property or `__class__` the
candidate wrote."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

MAX_WALK = 100_000  # objects visited by `graph_holders`


def graph_holders(*roots: Any, limit: int = MAX_WALK) -> list[str]:
    """Paths of every tensor that still holds an autograd graph (`grad_fn` set), reachable from
    `roots`: object attributes (`__dict__` and `__slots__`, read directly, never through a
    `__getattr__` or property the candidate wrote), containers, the globals of a module given as a
    root (pass the candidate's module: a graph kept in a module-level dict is found), the class
    attributes, function defaults and closures defined in it. Other modules are not entered."""
    import types

    found: list[str] = []
    seen: set[int] = set()
    todo: list[tuple[str, Any, str | None]] = [(f"root{i}", r, None) for i, r in enumerate(roots)]
    while todo and len(seen) < limit:
        path, obj, home = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            if obj.grad_fn is not None:
                found.append(path)
            continue
        if isinstance(obj, (str, bytes, int, float, complex, bool, type(None))):
            continue
        if isinstance(obj, types.ModuleType):
            if home is None:  # a root: its globals; modules it imported are not entered
                todo += [(f"{path}.{k}", v, obj.__name__) for k, v in vars(obj).items()]
            continue
        if isinstance(obj, types.FunctionType):
            if home is not None and obj.__module__ == home:
                parts = list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
                parts += [c.cell_contents for c in obj.__closure__ or () if _cell_set(c)]
                todo += [(f"{path}<{i}>", v, home) for i, v in enumerate(parts)]
            continue
        if isinstance(obj, type):
            if home is not None and obj.__module__ == home:
                todo += [(f"{path}.{k}", v, home) for k, v in vars(obj).items() if not k.startswith("__")]
            continue
        if callable(obj) and not isinstance(obj, nn.Module):
            continue
        if isinstance(obj, dict):
            todo += [(f"{path}[{k!r}]", v, home) for k, v in obj.items()]
        elif isinstance(obj, (list, tuple, set, frozenset, __import__("collections").deque)):
            todo += [(f"{path}[{i}]", v, home) for i, v in enumerate(obj)]
        else:
            todo += [(f"{path}.{k}", v, home) for k, v in instance_attrs(obj).items()]
    return sorted(found)


def instance_attrs(obj: Any) -> dict[str, Any]:
    """An object's own attributes (its `__dict__` and `__slots__`), read directly: never through a
    `__getattr__`, `__getattribute__` or property the candidate wrote (a ctx object's attributes,
    the state an object keeps)."""
    try:
        attrs = dict(object.__getattribute__(obj, "__dict__"))
    except (AttributeError, TypeError):
        attrs = {}
    for cls in type(obj).__mro__:
        for slot in cls.__dict__.get("__slots__", ()):
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__"):
                try:
                    attrs[slot] = object.__getattribute__(obj, slot)
                except AttributeError:
                    continue
    return attrs


def _cell_set(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def qualified_name(obj: Any) -> str:
    """`module.QualName` of `obj`'s class, read with `type()` (a class cannot lie about it through
    `__class__`): `torch.nn.modules.linear.Linear`, never just `Linear` (a candidate's own class
    called `Linear` reads `submission.Linear`)."""
    cls = type(obj)
    return f"{type.__dict__['__module__'].__get__(cls)}.{type.__dict__['__qualname__'].__get__(cls)}"
