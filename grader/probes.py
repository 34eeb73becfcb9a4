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

    def __init__(self, targets: tuple[str, ...], module: Any, make: Callable[[str, Any, Any], Callable],
                 watch: bool = True, profile: Callable | None = None) -> None:
        self.targets, self.module, self.make, self.watch, self.profile = targets, module, make, watch, profile
        self.recorder = Recorder()
        self._undo: list[tuple[Any, str, bool, Any]] = []
        self._block: Any = None

    def __enter__(self) -> Recorder:
        from grader.sandbox import callwatch

        block = callwatch.Block(self.recorder.calls, self.profile)
        try:
            for target in self.targets:
                owner, name = _resolve(target)
                original = getattr(owner, name)
                key = block.watch(target, original) if self.watch else None
                wrapper = self.make(target, original, key)
                self._swap(owner, name, wrapper)
                if self.module is not None:
                    for key, value in list(vars(self.module).items()):
                        if value is original:
                            self._swap(self.module, key, wrapper)
            if self.watch:
                callwatch.open_block(block)
                self._block = block
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
        from grader.sandbox import callwatch

        problems: list[str] = []
        try:
            if self._block is not None:
                problems = callwatch.close_block(self._block)
                self._block = None
        finally:
            self._restore()
        callwatch.refuse(problems)


def spy(*targets: str, module: Any = None, profile: Callable | None = None) -> _Patch:
    """Record every call of `targets` (dotted names: "torch.Tensor.to", "torch.nn.functional.linear")
    made inside the `with` block; calls still go through. Restored when the block ends.

        with probes.spy("torch.Tensor.to", "torch.Tensor.cuda", module=mod) as seen:
            model(x)
        return seen.count("torch.Tensor.to")

    Calls through the attribute (and, with `module`, names the candidate's module imported
    directly) are recorded by a wrapper, with their arguments. Calls through any other reference
    (one taken at import, kept in a list, built with getattr) are seen by the interpreter's
    profile function (`grader.sandbox.callwatch`): a Python function on every route, with its
    arguments; a builtin or a method of a C type (`time.time`, `Tensor.to`) when Python code calls
    it, with only the object it is bound to (`args == (tensor,)`). A block during which the
    candidate removed the profile function raises `TamperingDetected`. A probe that needs a
    profile function of its own passes it as `profile` (called on every event in the block);
    `sys.setprofile` inside a block is tampering."""
    from grader.sandbox import callwatch

    def make(target: str, original: Any, key: Any) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            recorder.calls.append((target, args, kwargs))
            mark = callwatch.entering(recorder.calls, key)  # so the profile function does not count it again
            try:
                return original(*args, **kwargs)
            finally:
                callwatch.leaving(mark)
        return wrapper

    patch = _Patch(targets, module, make, profile=profile)
    recorder = patch.recorder
    return patch


class ForbiddenAPIError(RuntimeError):
    """Raised inside the worker when the candidate's code calls an API the exercise forbids."""


def forbid_ops(fn: Callable, ops: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call `fn` with the aten operators `ops` forbidden at torch's dispatcher, and return (its
    result, or None when it raised; the forbidden operators it reached, in order). Their CPU (and
    CUDA) kernels are replaced for the call by ones that record the call and raise
    `ForbiddenAPIError`, then put back. Every route to a kernel meets there: a name built at run
    time (`getattr(torch, "cd" + "ist")`), a reference taken at import, `torch.ops.aten`, with
    Python dispatch modes disabled; an attribute spy or the AST sees none of these. `torch.cdist`
    runs `_euclidean_dist` or `_cdist_forward`. Decide from the list, never from the exception (the
    candidate may catch it).

    The guard is itself in the candidate's process: a submission that finds it (gc.get_objects)
    and removes it, resets it, or puts a kernel of its own over it, leaves torch's dispatcher
    otherwise than the guard left it. That is compared after the call (`torch._C._dispatch_dump`
    of each operator, which names every kernel and where it was registered) and raises
    `TamperingDetected`: the probe's observation is void.

    torch also ships Python re-implementations of many operators (`torch._refs.softmax`,
    `torch._decomp`'s `native_layer_norm`), which compute the result from other operators and
    never reach the forbidden kernel: their code running is seen by the call watch
    (`grader.sandbox.callwatch`, whatever reference reached them) and listed by their own names."""

    reached: list[str] = []

    def refuse(name: str) -> Callable:
        def kernel(*a: Any, **k: Any) -> Any:
            reached.append(name)
            raise ForbiddenAPIError(f"aten.{name} is not allowed in this exercise")
        return kernel

    # torch's Python re-implementations of the operators (torch._refs, torch._decomp) compute the
    # same thing from other operators, out of the dispatcher guard's sight: the call watch sees
    # their code run, whatever reference reached them (`_dispatch_guarded`)
    keys = ("CPU", "CUDA") if torch.cuda.is_available() else ("CPU",)
    return _dispatch_guarded(fn, args, kwargs, ops, refuse, keys, ops, reached)


def _dispatch_guarded(fn: Callable, args: tuple, kwargs: dict, ops: tuple[str, ...], refuse: Callable,
                      keys: tuple[str, ...], python_ops: list | tuple, reached: list[str]) -> tuple[Any, list[str]]:
    """What `forbid_ops` and `forbid_forward_ops` share: `refuse(name)`'s kernel registered for
    each of `ops` at the dispatch `keys` for the call, torch's Python re-implementations of
    `python_ops` watched, the dispatcher compared after the call (TamperingDetected when the
    candidate changed it), and `reached` (which the kernels fill) returned with what ran."""
    import warnings

    from grader.sandbox import callwatch

    python: list = []
    block = callwatch.Block(python)
    for name in python_ops:
        for target, label in _python_versions(name):
            block.watch(label, target)
    problems: list[str] = []
    library = torch.library.Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Overriding a previously registered kernel"
            for name in ops:
                for key in keys:
                    library.impl(name, refuse(name), key)
        guarded = {name: torch._C._dispatch_dump(f"aten::{name}") for name in ops}
        callwatch.open_block(block)
        try:
            result = fn(*args, **kwargs)
        except ForbiddenAPIError:
            result = None
        finally:
            problems = callwatch.close_block(block)
        changed = [name for name in ops if torch._C._dispatch_dump(f"aten::{name}") != guarded[name]]
    finally:
        library._destroy()
    if changed:
        from grader.sandbox.worker import TamperingDetected

        raise TamperingDetected(f"the submission changed torch's dispatcher for aten.{changed[0]} while its code ran "
                                "(the grader's guard there was removed or overridden): this check cannot be trusted")
    callwatch.refuse(problems)
    reached += [label for label, _, _ in python]
    return result, reached


def _python_versions(op: str) -> list[tuple[Any, str]]:
    """torch's Python implementations of aten `op`: its decompositions (`torch._decomp`) and the
    references of the same name (`torch._refs`), also under the public name (`_softmax` ->
    `softmax`, `native_layer_norm` -> `layer_norm`, `nll_loss_forward` -> `nll_loss`)."""
    import torch._decomp
    import torch._refs
    import torch._refs.nn.functional
    import torch._refs.special

    names = {op, op.removeprefix("_").removeprefix("native_").removesuffix("_forward")}
    found: list[tuple[Any, str]] = []
    for name in sorted(names):
        try:
            packet = getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            packet = None
        for key, function in torch._decomp.decomposition_table.items():
            if packet is not None and getattr(key, "overloadpacket", None) is packet:
                found.append((function, f"{function.__module__}.{function.__qualname__} (torch's Python "
                                        f"decomposition of aten.{name})"))
        for module in (torch._refs, torch._refs.nn.functional, torch._refs.special):
            function = vars(module).get(name)
            if callable(function):
                found.append((function, f"{module.__name__}.{name} (torch's Python reference of aten.{name})"))
    return found


def at_dispatcher(reached: list[str]) -> list[str]:
    """How a check names the operators `forbid_ops` saw reached, beside a spy's names:
    `aten.<op> (reached at torch's dispatcher)`, and torch's Python re-implementations by their
    own names (`torch._refs.softmax (torch's Python reference of aten.softmax)`)."""
    return [op if " " in op else f"aten.{op} (reached at torch's dispatcher)" for op in reached]


def forbid(*targets: str, module: Any = None) -> _Patch:
    """Like `spy`, but each call through the attribute raises `ForbiddenAPIError` instead of
    running the target (a call through another reference runs, and is recorded). The candidate
    may catch that exception, so decide from the recorder, never from the exception:

        with probes.forbid("torch.func.hessian", module=mod) as seen:
            try:
                out = mod.hvp(f, x, v)
            except probes.ForbiddenAPIError:
                out = None
        return seen.names()          # the check fails when it is not empty
    """
    def make(target: str, original: Any, key: Any) -> Callable:
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


# --- optimizers, schedulers and warnings, observed in the worker -------------------------------

def _plain(value: Any) -> Any:
    """`value` as plain data: tensors detached and cloned, containers rebuilt, anything else
    (a function, an object) by its qualified type name."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if value is None or isinstance(value, (bool, int, float, str, complex, torch.dtype, torch.device)):
        return value
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return f"<{qualified_name(value)}>"


def optimizer_state(optimizer: Any) -> dict[str, Any]:
    """The optimizer's state as plain data, in the layout of `Optimizer.state_dict()`:
    `{"state": {index: {key: value}}, "param_groups": [{..., "params": [index, ...]}]}`, parameters
    numbered in group order. Read from the instance's own `state` and `param_groups` entries
    (never through a `state_dict` the candidate's class may override); tensors cloned."""
    attrs = object.__getattribute__(optimizer, "__dict__")
    groups, state = attrs["param_groups"], attrs["state"]
    index: dict[int, int] = {}
    packed_groups = []
    for group in groups:
        packed = {k: _plain(v) for k, v in group.items() if k != "params"}
        packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
        packed_groups.append(packed)
    packed_state = {index[id(p)]: _plain(dict(s)) for p, s in state.items() if id(p) in index}
    return {"state": packed_state, "param_groups": packed_groups}


def scheduler_state(scheduler: Any) -> dict[str, Any]:
    """An LR scheduler's own attributes as plain data (what `LRScheduler.state_dict()` saves: its
    `__dict__` without the optimizer), read directly from the instance; functions (a `LambdaLR`'s
    lambdas) appear as their type name."""
    attrs = object.__getattribute__(scheduler, "__dict__")
    return {k: _plain(v) for k, v in attrs.items() if k != "optimizer"}


def train_steps(optimizer: Any, params: Any, loss_fn: Callable[[], torch.Tensor], steps: int,
                scheduler: Any = None, set_to_none: bool = True) -> dict[str, Any]:
    """Run `steps` optimisation steps in the worker over `params` (the tensors the optimizer really
    holds: build both inside the probe) and return plain data:

    - `params`: after each step, a clone of every parameter (`params[s][i]`);
    - `lrs`: the lr of each param group when step s ran (`lrs[s][g]`);
    - `losses`: `loss_fn()` of each step, as floats.

    Each step sets every parameter's `.grad` to None itself (an overridden `zero_grad` cannot skip
    it; `set_to_none=False` zeroes existing grads in place instead, as `zero_grad(set_to_none=False)`
    does, which shows an optimizer that kept a reference to a `.grad`), runs
    `loss_fn().backward()`, `optimizer.step()`, then `scheduler.step()` when given."""
    params = list(params)
    groups = object.__getattribute__(optimizer, "__dict__")["param_groups"]
    seen: dict[str, list] = {"params": [], "lrs": [], "losses": []}
    for _ in range(steps):
        for p in params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad.zero_()
        loss = loss_fn()
        loss.backward()
        seen["lrs"].append([float(g["lr"]) for g in groups])
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        seen["losses"].append(float(loss.detach()))
        seen["params"].append([p.detach().clone() for p in params])
    return seen


class WarningLog:
    """What `capture_warnings` saw: `records` (plain dicts: `category`, `categories` (the
    category's class and its bases, by name), `message`, `filename`, `lineno`), in order, and
    `tampered` (names in `warnings` that the code inside the block replaced, or `filters` when it
    changed the filters: a warning may then have been hidden)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.tampered: list[str] = []

    def count(self, category: str | None = None, match: str | None = None) -> int:
        """Warnings of `category` (a class name, its bases count: "Warning" counts all) whose
        message contains `match`."""
        return sum(1 for r in self.records
                   if (category is None or category in r["categories"]) and (match is None or match in r["message"]))

    def as_data(self) -> dict[str, Any]:
        return {"records": list(self.records), "tampered": list(self.tampered)}


class _CaptureWarnings:
    _WATCH = ("warn", "warn_explicit", "showwarning", "_showwarnmsg", "_showwarnmsg_impl", "formatwarning")

    def __init__(self) -> None:
        self.log = WarningLog()
        self._inner: Any = None

    def __enter__(self) -> WarningLog:
        import warnings

        self._inner = warnings.catch_warnings(record=True)
        self._raw = self._inner.__enter__()
        warnings.simplefilter("always")
        self._filters = list(warnings.filters)
        self._names = {name: vars(warnings).get(name) for name in self._WATCH}
        return self.log

    def __exit__(self, *exc: Any) -> None:
        import warnings

        try:
            self.log.tampered = [n for n, v in self._names.items() if vars(warnings).get(n) is not v]
            if list(warnings.filters) != self._filters:
                self.log.tampered.append("filters")
            for w in self._raw:
                cat = w.category
                self.log.records.append({
                    "category": cat.__name__, "categories": [c.__name__ for c in cat.__mro__ if c is not object],
                    "message": str(w.message), "filename": str(w.filename), "lineno": int(w.lineno or 0)})
        finally:
            self._inner.__exit__(*exc)


def capture_warnings() -> _CaptureWarnings:
    """Record every warning raised inside the `with` block (in the worker: `pytest.warns` in the
    judge cannot see them), with every filter set to "always" so that none is swallowed as a
    repeat, and restore the `warnings` module when the block ends:

        with probes.capture_warnings() as seen:
            mod.run_steps(opt, sched, closure, 5)
        return seen.as_data()        # {"records": [{"category": "UserWarning", "message": ...}], "tampered": []}

    A submission that replaces `warnings.warn`/`showwarning` or changes the filters inside the
    block is named in `tampered`; checks that rely on the absence of a warning must require it
    to be empty. (A replacement left behind after the block also trips the worker's tamper guard.)"""
    return _CaptureWarnings()


# --- faking what the machine has ------------------------------------------------------------------

def replace(*targets: str, returns: Any, module: Any = None) -> _Patch:
    """Like `spy`, but each call of `targets` through the attribute returns `returns` instead of
    running the target (a call through another reference runs it, and is recorded): a
    CPU host made to look like a CUDA one (`torch.cuda.is_available` -> True) or the reverse.
    Calls are recorded; everything is restored when the block ends.

        with probes.replace("torch.cuda.is_available", returns=True, module=mod) as seen:
            device = mod.pick_device()
        return str(device), seen.count()
    """
    def make(target: str, original: Any, key: Any) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            recorder.calls.append((target, args, kwargs))
            return returns
        return wrapper

    patch = _Patch(targets, module, make)
    recorder = patch.recorder
    return patch


def substitute(target: str, replacement: Any, module: Any = None) -> _Patch:
    """Put `replacement` (a function, a class, any object) in place of `target` for the length of
    a `with` block, and restore the original after it: a fake `torch.cuda.Event` class on a CPU
    host, say, whose methods write what the code did into a log the probe returns. Names the
    candidate's module imported directly are replaced too (`module=`). Nothing is recorded: the
    replacement does its own bookkeeping."""
    return _Patch((target,), module, lambda name, original, key: replacement, watch=False)


def hook_keys(module: Any, name: str) -> list:
    """The ids of the hooks in `module`'s hook registry `name` (`_forward_hooks`...), or in nn's
    global one when `module` is None (`_global_forward_hooks`...), read through dict's own methods:
    a registry swapped for a dict subclass (whose iteration could hide a hook torch still fires)
    raises TamperingDetected. See grader.sandbox.registries."""
    from grader.sandbox.registries import hook_keys as read

    return read(module, name)


def forbid_forward_ops(fn: Callable, ops: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """`forbid_ops` for a call that also runs backward passes: the aten operators `ops` ("sigmoid",
    "sigmoid_", an overload as "sigmoid.out") are refused when the candidate's code reaches them,
    and run as usual inside a backward pass (torch's own backward formulas reach them: the
    gradient of `binary_cross_entropy_with_logits` computes `sigmoid`). The refusing kernel sits
    at the autograd keys (AutogradCPU, AutogradCUDA), where every route from Python meets it (a
    name built at run time, a reference kept from import, `torch.ops.aten`, dispatch modes
    disabled); inside a backward pass (`torch._C._current_autograd_node()` is set) it hands the
    call to the kernel below. Returns (fn's result, or None when it raised ForbiddenAPIError; the
    operators refused, in order, with torch's Python re-implementations that ran). What it does
    not see: a call below the autograd keys (`torch.inference_mode()`, whose results carry no
    gradient; `torch._C._AutoDispatchBelowAutograd`). The dispatcher is compared after the call
    as in `forbid_ops` (TamperingDetected when the candidate changed it)."""


    reached: list[str] = []

    def refuse(name: str) -> Callable:
        base, _, overload = name.partition(".")
        below = getattr(getattr(torch.ops.aten, base), overload or "default")

        def kernel(*a: Any, **k: Any) -> Any:
            if torch._C._current_autograd_node() is not None:  # torch's backward formula
                with torch._C._AutoDispatchBelowAutograd():
                    return below(*a, **k)
            reached.append(name)
            raise ForbiddenAPIError(f"aten.{name} is not allowed in this exercise")
        return kernel

    keys = ("AutogradCPU", "AutogradCUDA") if torch.cuda.is_available() else ("AutogradCPU",)
    return _dispatch_guarded(fn, args, kwargs, ops, refuse, keys, [name.partition(".")[0] for name in ops], reached)
