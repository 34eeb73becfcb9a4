"""Spies and patches: named targets recorded, refused, faked or replaced for the length of a
`with` block, and restored exactly after it (`spy`, `forbid`, `replace`, `substitute`: each a
`Patch` of the targets `resolve` finds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def resolve(target: str) -> tuple[Any, str]:
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


class Patch:
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
                owner, name = resolve(target)
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


def spy(*targets: str, module: Any = None, profile: Callable | None = None) -> Patch:
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

    patch = Patch(targets, module, make, profile=profile)
    recorder = patch.recorder
    return patch


class ForbiddenAPIError(RuntimeError):
    """Raised inside the worker when the candidate's code calls an API the exercise forbids."""


def forbid(*targets: str, module: Any = None) -> Patch:
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

    patch = Patch(targets, module, make)
    recorder = patch.recorder
    return patch


def replace(*targets: str, returns: Any, module: Any = None) -> Patch:
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

    patch = Patch(targets, module, make)
    recorder = patch.recorder
    return patch


def substitute(target: str, replacement: Any, module: Any = None) -> Patch:
    """Put `replacement` (a function, a class, any object) in place of `target` for the length of
    a `with` block, and restore the original after it: a fake `torch.cuda.Event` class on a CPU
    host, say, whose methods write what the code did into a log the probe returns. Names the
    candidate's module imported directly are replaced too (`module=`). Nothing is recorded: the
    replacement does its own bookkeeping."""
    return Patch((target,), module, lambda name, original, key: replacement, watch=False)
