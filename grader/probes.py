"""Observations for probes that do not trust what the candidate can override.

Probes run in the worker, next to the candidate's objects, and a candidate's class may override
any method it inherits: a wrong MLP can answer `state_dict()`, `named_parameters()`,
`named_modules()`, `named_children()` or `load_state_dict()` with decoy layers, and even torch's own
`nn.Module.state_dict(m)` calls methods of `m` (`named_modules`, each child's `state_dict`). These
helpers read torch's registries (`_modules`, `_parameters`, `_buffers`) directly, walk what an
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


def qualified_name(obj: Any) -> str:
    """`module.QualName` of `obj`'s class, read with `type()` (a class cannot lie about it through
    `__class__`): `torch.nn.modules.linear.Linear`, never just `Linear` (a candidate's own class
    called `Linear` reads `submission.Linear`)."""
    cls = type(obj)
    return f"{type.__dict__['__module__'].__get__(cls)}.{type.__dict__['__qualname__'].__get__(cls)}"


def _resolve(target: str) -> tuple[Any, str]:
    """("torch.Tensor.to") -> (torch.Tensor, "to"): the longest importable module prefix, then
    attributes down to the owner of the last name."""
    import importlib

    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ValueError(f"cannot resolve {target!r}: name it as module.attribute, e.g. 'torch.Tensor.to'")


class Recorder:
    """What a `spy` or `forbid` saw: `calls` is a list of (target, args, kwargs), in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def count(self, target: str | None = None) -> int:
        """Calls recorded (of `target` only, when given)."""
        return sum(1 for name, _, _ in self.calls if target is None or name == target)

    def names(self) -> list[str]:
        """The targets called, in order (plain data a probe can return)."""
        return [name for name, _, _ in self.calls]


class _Patch:
    """Replaces targets for the length of a `with` block and restores exactly what was there
    (the owner's own `__dict__` entry, or nothing when the name was inherited), so the worker's
    tamper guard, which compares attributes before and after each probe, sees no change. Names
    the candidate's module imported directly (`from torch.func import hessian`) are patched too."""

    def __init__(self, targets: tuple[str, ...], module: Any, make: Callable[[str, Any], Callable]) -> None:
        self.targets, self.module, self.make = targets, module, make
        self.recorder = Recorder()
        self._undo: list[tuple[Any, str, bool, Any]] = []

    def __enter__(self) -> Recorder:
        try:
            for target in self.targets:
                owner, name = _resolve(target)
                original = getattr(owner, name)
                wrapper = self.make(target, original)
                self._swap(owner, name, wrapper)
                if self.module is not None:
                    for key, value in list(vars(self.module).items()):
                        if value is original:
                            self._swap(self.module, key, wrapper)
        except BaseException:
            self._restore()
            raise
        return self.recorder

    def _swap(self, owner: Any, name: str, value: Any) -> None:
        own = vars(owner)
        self._undo.append((owner, name, name in own, own.get(name)))
        setattr(owner, name, value)

    def _restore(self) -> None:
        while self._undo:
            owner, name, had, raw = self._undo.pop()
            if had:
                setattr(owner, name, raw)
            elif name in vars(owner):
                delattr(owner, name)

    def __exit__(self, *exc: Any) -> None:
        self._restore()


def spy(*targets: str, module: Any = None) -> _Patch:
    """Record every call of `targets` (dotted names: "torch.Tensor.to", "torch.nn.functional.linear")
    made inside the `with` block; calls still go through. Restored when the block ends.

        with probes.spy("torch.Tensor.to", "torch.Tensor.cuda", module=mod) as seen:
            model(x)
        return seen.count("torch.Tensor.to")

    Pass the candidate's module as `module` to catch names it imported directly. A spy sees calls
    made through the attribute, not through a reference the candidate took before the block."""
    def make(target: str, original: Any) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            recorder.calls.append((target, args, kwargs))
            return original(*args, **kwargs)
        return wrapper

    patch = _Patch(targets, module, make)
    recorder = patch.recorder
    return patch


class ForbiddenAPIError(RuntimeError):
    """Raised inside the worker when the candidate's code calls an API the exercise forbids."""


def forbid(*targets: str, module: Any = None) -> _Patch:
    """Like `spy`, but each call raises `ForbiddenAPIError` instead of running the target. The
    candidate may catch that exception, so decide from the recorder, never from the exception:

        with probes.forbid("torch.func.hessian", module=mod) as seen:
            try:
                out = mod.hvp(f, x, v)
            except probes.ForbiddenAPIError:
                out = None
        return seen.names()          # the check fails when it is not empty
    """
    def make(target: str, original: Any) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            recorder.calls.append((target, args, kwargs))
            raise ForbiddenAPIError(f"{target} is not allowed in this exercise")
        return wrapper

    patch = _Patch(targets, module, make)
    recorder = patch.recorder
    return patch


class HookRecorder:
    """Forward (and optionally backward) hooks on every submodule of `model`, registered with
    `nn.Module`'s own methods and removed when the `with` block ends. `forward` and `backward`
    list the submodule names ("" is the model itself) in the order their hooks fired."""

    def __init__(self, model: Any, backward: bool = False) -> None:
        self.model, self.with_backward = model, backward
        self.forward: list[str] = []
        self.backward: list[str] = []
        self._handles: list[Any] = []

    def __enter__(self) -> HookRecorder:
        try:
            for name, sub in nn.Module.named_modules(self.model):
                self._handles.append(nn.Module.register_forward_hook(
                    sub, lambda m, args, out, name=name: self.forward.append(name)))
                if self.with_backward:
                    self._handles.append(nn.Module.register_full_backward_hook(
                        sub, lambda m, gin, gout, name=name: self.backward.append(name)))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        while self._handles:
            self._handles.pop().remove()


def hook_recorder(model: Any, backward: bool = False) -> HookRecorder:
    """Record which submodules run, through hooks (see `HookRecorder`):

        with probes.hook_recorder(model) as seen:
            model(x)
        return seen.forward          # e.g. ['layers.0', 'layers.1', 'head', '']
    """
    return HookRecorder(model, backward)


def meta_forward(model: Any, *inputs: Any) -> dict[str, Any]:
    """Move `model` to the meta device with `nn.Module.to` (torch's) and run its forward on meta
    copies of `inputs`: the device check for machines without a GPU. Returns plain data:
    `params` and `buffers` (sorted device types of every parameter and buffer, read with
    `nn.Module`'s methods), `out` (device type and shape of each tensor output, or the output's
    type name) and `error` (the exception text when forward failed, e.g. a tensor created on the
    CPU inside forward without `device=`, which then meets a meta tensor)."""
    nn.Module.to(model, "meta")
    seen: dict[str, Any] = {
        "params": sorted({p.device.type for p in nn.Module.parameters(model)}),
        "buffers": sorted({b.device.type for b in nn.Module.buffers(model)}),
        "out": None, "error": None}
    metas = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs]
    try:
        out = model(*metas)
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as data; the check decides
        seen["error"] = f"{type(exc).__name__}: {exc}"[:300]
        return seen
    outs = out if isinstance(out, (tuple, list)) else [out]
    seen["out"] = [(o.device.type, tuple(o.shape)) if isinstance(o, torch.Tensor) else type(o).__name__
                   for o in outs]
    return seen
