"""torch's module registries read directly: a module's state, parameters and submodules as torch
keeps them (`_modules`, `_parameters`, `_buffers`), never through a method the candidate's classes
may override."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def _modules(module: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted name, module) of `module` and every submodule, read from the registries torch keeps
    (`_modules`), never through a method or `__getattr__` the candidate's classes may override
    (torch's own `named_parameters` and `state_dict` call `self.named_modules()` and each child's
    `state_dict()`, which a subclass can redefine)."""
    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    todo = [(prefix, module)]
    while todo:
        name, m = todo.pop(0)
        if id(m) in seen:
            continue
        seen.add(id(m))
        found.append((name, m))
        children = object.__getattribute__(m, "_modules")
        todo += [(f"{name}.{k}" if name else k, c) for k, c in children.items() if c is not None]
    return found


def _registered(module: Any, registry: str) -> dict[str, Any]:
    return dict(object.__getattribute__(module, registry))


def state_dict(module: Any) -> dict[str, torch.Tensor]:
    """What torch registers as the module's state (parameters and persistent buffers of it and its
    submodules), read from torch's registries: whatever `state_dict`, `_save_to_state_dict` or
    `named_modules` the candidate's classes define. Values detached and cloned."""
    out: dict[str, torch.Tensor] = {}
    for name, m in _modules(module):
        prefix = f"{name}." if name else ""
        skip = object.__getattribute__(m, "_non_persistent_buffers_set")
        for key, value in [*_registered(m, "_parameters").items(), *_registered(m, "_buffers").items()]:
            if value is not None and key not in skip:
                out[prefix + key] = value.detach().clone()
    return out


def named_parameters(module: Any) -> dict[str, torch.Tensor]:
    """name -> registered parameter (itself: `.grad` kept), each once, from torch's registries."""
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for name, m in _modules(module):
        prefix = f"{name}." if name else ""
        for key, p in _registered(m, "_parameters").items():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                out[prefix + key] = p
    return out


def modules(module: Any) -> list[tuple[str, Any]]:
    """(name, submodule object) of the module and every registered submodule, in order: for probes
    that register hooks or read `training` (instead of `m.named_modules()` / `m.modules()`)."""
    return _modules(module)


def named_modules(module: Any) -> list[tuple[str, str]]:
    """(name, class name) of the module and every registered submodule, in order."""
    return [(name, type(m).__name__) for name, m in _modules(module)]


def named_children(module: Any) -> list[tuple[str, str]]:
    """(name, class name) of the registered direct submodules."""
    return [(k, type(c).__name__) for k, c in _registered(module, "_modules").items() if c is not None]


def load_state_dict(module: Any, state: dict, strict: bool = True) -> tuple[list[str], list[str]]:
    """`nn.Module.load_state_dict` (torch's): (missing keys, unexpected keys). It calls each
    submodule's `_load_from_state_dict`, which a class can override: check what was loaded with
    `state_dict` above, or by the outputs, never by this answer alone."""
    result = nn.Module.load_state_dict(module, state, strict=strict)
    return list(result.missing_keys), list(result.unexpected_keys)
