"""Calls of named functions seen whatever reference they are made through (for `probes.spy`/`forbid`).

An attribute patch (`torch.nn.Module.to = recording_wrapper`) sees only calls made through that
attribute: a reference taken before the block escapes it (`_move = nn.Module._apply` at import, a
list of converters, `getattr(functional, "hes" + "sian")` kept in a global). The interpreter's
profile function (`sys.setprofile`) sees the call itself:

- a Python function: a 'call' event whose frame runs the function's own code object, whatever
  called it (a kept reference, `functools.partial`, `map`, a thread started with `threading`);
  its arguments are read from the new frame;
- a builtin (`time.time`, `torch.from_numpy`): a 'c_call' event naming the builtin; a method of a
  C type (`torch.Tensor.to`): a bound method of that name on an instance of the type. Only calls
  made by Python code raise these events: a builtin that C code calls (`functools.partial`,
  `map`, a sort key) is seen only through the attribute patch.

One profile function serves every open block (blocks nest), in this thread and in threads started
with `threading` while a block is open. The candidate could remove it, so removing it is evidence:
`sys.setprofile` raises the audit event of that name on every route (Python, `map`, C), and an
audit hook, which cannot be removed, counts the calls not made here; a block during which one was
made, or that ends with another profile function in place, or during which Python code started a
raw `_thread` thread (unprofiled), raises `TamperingDetected`. The hook is installed by the fork
server before any candidate code runs (`install`), and by the first block otherwise.
"""

from __future__ import annotations

import _thread
import inspect
import os
import sys
import threading
import types
from typing import Any

import torch

# functions whose frames are resumed (each resume is another 'call' event): left to the attribute patch
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR
_PROFILE_EVENTS = frozenset({"sys.setprofile", "sys._setprofileallthreads"})
_RAW_THREADS = frozenset(getattr(_thread, name) for name in ("start_new_thread", "start_joinable_thread", "start_new")
                         if hasattr(_thread, name))


class Block:
    """One open `spy`/`forbid` block: what it watches and where its calls go."""

    def __init__(self, calls: list, profile: Any = None) -> None:
        self.calls = calls            # the recorder's list of (label, args, kwargs)
        self.profile = profile        # the probe's own profile function, called on every event
        self.codes: dict[Any, str] = {}
        self.builtins: dict[Any, str] = {}
        self.methods: dict[str, list[tuple[type, str]]] = {}
        self.changes = 0
        self.problems: list[str] = []

    def watch(self, label: str, target: Any) -> Any:
        """Watch `target` (the object the patched attribute held) under `label`; the key its calls
        are known by (what a spy's wrapper passes to `entering`), None when it cannot be watched."""
        if isinstance(target, (classmethod, staticmethod, types.MethodType)):
            target = target.__func__
        if isinstance(target, types.FunctionType):
            # decorators (functools.wraps: torch's `_use_grad`, the optimizer's step hook, the
            # grader's registry guard) share one code object among every function they wrap:
            # watch the function underneath
            for _ in range(8):
                if not isinstance(getattr(target, "__wrapped__", None), types.FunctionType):
                    break
                target = target.__wrapped__
            code = target.__code__
            if code.co_flags & _RESUMABLE:
                return None
            self.codes.setdefault(code, label)
            return code
        if isinstance(target, types.BuiltinFunctionType):
            # keyed by the builtin itself: its hash and equality are C code (pointers), and id()
            # would raise an audit event per call
            self.builtins.setdefault(target, label)
            return target
        if isinstance(target, (types.MethodDescriptorType, types.ClassMethodDescriptorType)):
            self.methods.setdefault(target.__name__, []).append((target.__objclass__, label))
            return (target.__name__, target.__objclass__)
        return None


_open: list[Block] = []
_codes: dict[Any, list[tuple[Block, str]]] = {}
_builtins: dict[Any, list[tuple[Block, str]]] = {}
_methods: dict[str, list[tuple[Block, type, str]]] = {}
_local = threading.local()  # per thread: the spy wrappers on their way to the function they wrap
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_profiles: list = []  # probes' own profile functions
_state = {"changes": 0, "ours": False, "hooked": False, "previous": None, "threads": None}
_MRO = type.__dict__["__mro__"].__get__
_BOOTSTRAP = threading.Thread._bootstrap_inner.__code__
_START = threading.Thread.start.__code__


def _arguments(frame: Any) -> tuple[tuple, dict]:
    code, local = frame.f_code, frame.f_locals
    names, count, kwonly = code.co_varnames, code.co_argcount, code.co_kwonlyargcount
    args = [local.get(name) for name in names[:count]]
    kwargs = {name: local[name] for name in names[count:count + kwonly] if name in local}
    index = count + kwonly
    if code.co_flags & inspect.CO_VARARGS:
        args += list(local.get(names[index], ()))
        index += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwargs.update(local.get(names[index], {}))
    return tuple(args), kwargs


def entering(calls: list, key: Any) -> int:
    """A spy's wrapper (which recorded the call itself) is about to call the function known by
    `key`: the next such call in this thread is that one, not another. Returns the mark for
    `leaving`."""
    stack = _local.__dict__.setdefault("stack", [])
    stack.append([calls, key, False])
    return len(stack) - 1


def leaving(mark: int) -> None:
    del _local.__dict__.setdefault("stack", [])[mark:]


def _expected(calls: list, key: Any) -> bool:
    """Is this call the one a wrapper of this block announced (and so recorded already)? Only the
    wrappers still on their way count: decorators of the function run in between, nothing else."""
    for entry in reversed(_local.__dict__.get("stack", ())):
        if entry[2]:
            return False
        if entry[0] is calls and entry[1] == key:
            entry[2] = True
            return True
    return False


def _method_hits(name: str, owner: type) -> list | None:
    """The blocks watching a method `name` of a C type that `owner` is or derives from."""
    found = _methods.get(name)
    if not found:
        return None
    mro = _MRO(owner)
    return [(block, label, (name, cls)) for block, cls, label in found if cls in mro]


def _dispatch(frame: Any, event: str, arg: Any) -> None:
    try:
        if event == "call":
            code = frame.f_code
            hits = _codes.get(code)
            if hits:
                args, kwargs = _arguments(frame)
                for block, label in hits:
                    if not _expected(block.calls, code):
                        block.calls.append((label, args, kwargs))
        elif event == "c_call":
            kind = type(arg)
            hits = None
            bound = None
            if kind is types.BuiltinMethodType:
                hits = _builtins.get(arg)
                if hits is not None:
                    hits = [(block, label, arg) for block, label in hits]
                elif _methods and arg.__name__ in _methods:
                    bound = arg.__self__
                    hits = _method_hits(arg.__name__, type(bound))
            elif kind is types.MethodDescriptorType and _methods:  # reported unbound (Python 3.12)
                hits = _method_hits(arg.__name__, arg.__objclass__)
            if hits:
                # torch's own Python code calls builtins through references of its own
                # (`F.dropout` calls `_VF.dropout`, which is `torch.dropout`): not the candidate's call
                inside_torch = frame.f_code.co_filename.startswith(_TORCH_DIR)
                for block, label, key in hits:
                    if not _expected(block.calls, key) and not inside_torch:
                        block.calls.append((label, (bound,) if bound is not None else (), {}))
            elif kind is types.BuiltinMethodType and arg in _RAW_THREADS and frame.f_code is not _START:
                for block in _open:
                    block.problems.append("started a thread with _thread directly (no profile function there)")
    except BaseException as exc:  # noqa: BLE001 - an error here would remove the profile function
        for block in _open:
            block.problems.append(f"the call watch failed ({type(exc).__name__})")
    for profile in _profiles:
        profile(frame, event, arg)


def _audit(event: str, args: tuple) -> None:
    if event in _PROFILE_EVENTS and _open and not _state["ours"]:
        caller = sys._getframe(1)
        if event == "sys.setprofile" and caller.f_code is _BOOTSTRAP and threading.getprofile() is _dispatch:
            return  # a thread started with `threading` in a block, taking our profile function
        _state["changes"] += 1


def install() -> None:
    """Add the audit hook (once per process: forked workers inherit it)."""
    if not _state["hooked"]:
        sys.addaudithook(_audit)
        _state["hooked"] = True


def _rebuild() -> None:
    _codes.clear()
    _builtins.clear()
    _methods.clear()
    _profiles.clear()
    for block in _open:
        if block.profile is not None:
            _profiles.append(block.profile)
        for code, label in block.codes.items():
            _codes.setdefault(code, []).append((block, label))
        for key, label in block.builtins.items():
            _builtins.setdefault(key, []).append((block, label))
        for name, found in block.methods.items():
            _methods.setdefault(name, []).extend((block, cls, label) for cls, label in found)


def _set(profile: Any, threads: Any) -> None:
    _state["ours"] = True
    try:
        threading.setprofile(threads)
        sys.setprofile(profile)
    finally:
        _state["ours"] = False


def open_block(block: Block) -> None:
    install()
    if not _open:
        _state["previous"], _state["threads"] = sys.getprofile(), threading.getprofile()
    _open.append(block)
    _rebuild()
    _set(_dispatch, _dispatch)
    block.changes = _state["changes"]


def close_block(block: Block) -> list[str]:
    """End the block; why its observations cannot be trusted (empty when they can)."""
    problems = list(block.problems)
    if sys.getprofile() is not _dispatch:
        problems.append("the profile function was replaced")
    if _state["changes"] != block.changes:
        problems.append("sys.setprofile was called")
    if block in _open:
        _open.remove(block)
    _rebuild()
    if _open:
        _set(_dispatch, _dispatch)
    else:
        _set(_state["previous"], _state["threads"])
    return problems


def refuse(problems: list[str]) -> None:
    """Raise `TamperingDetected` for what `close_block` found, if anything."""
    if problems:
        from grader.sandbox.tamper import TamperingDetected

        raise TamperingDetected(f"the submission interfered with the grader's call watch ({'; '.join(problems)}): "
                                "what this check observed cannot be trusted")
